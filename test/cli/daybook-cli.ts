/**
 * Running the `daybook` command line for the tests: in this process through `runCli`, the same
 * code bin/daybook runs, with its output and exit status captured; or as the real program,
 * which a few tests do to show that the binary itself works.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/run.ts';
import type { Dialect } from '../../src/storage/database.ts';
import { createPostgresDatabase } from '../helper.ts';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Everything written to it, as text once the run is over (a character may span two writes). */
class Captured extends Writable {
  private readonly chunks: Buffer[] = [];

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(chunk);
    done();
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Runs `daybook args…` in this process with `env` added to this process's environment. */
export async function runDaybook(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const stdout = new Captured();
  const stderr = new Captured();
  const code = await runCli(args, { stdout, stderr, env: { ...process.env, ...env } });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** Runs `daybook args…` in this process with the database at `url`. */
export function daybook(url: string, ...args: string[]): Promise<Run> {
  return runDaybook(args, { DAYBOOK_DATABASE_URL: url, LOG_LEVEL: 'silent' });
}

/** Runs `bin/daybook args…` as a process with the database at `url`; never throws on a non-zero exit. */
export function daybookProcess(url: string, ...args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      [join(repoRoot, 'bin', 'daybook'), ...args],
      { cwd: repoRoot, env: { ...process.env, DAYBOOK_DATABASE_URL: url, LOG_LEVEL: 'silent' }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** An empty, unmigrated database: a file in `dir` for SQLite, a throwaway database for PostgreSQL. */
export async function emptyDatabase(
  dialect: Dialect,
  dir: string,
  prefix: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite')
    return { url: `sqlite:${join(dir, `${prefix}-${randomBytes(4).toString('hex')}.db`)}`, drop: async () => {} };
  return createPostgresDatabase(`daybook_t_${prefix}`);
}
