/** Running `bin/daybook` as users do, for the command-line tests. */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dialect } from '../../src/storage/database.ts';
import { createPostgresDatabase } from '../helper.ts';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `bin/daybook args…` with the database at `url`; never throws on a non-zero exit. */
export function daybook(url: string, ...args: string[]): Promise<Run> {
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
export async function emptyDatabase(dialect: Dialect, dir: string, prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') return { url: `sqlite:${join(dir, `${prefix}-${randomBytes(4).toString('hex')}.db`)}`, drop: async () => {} };
  return createPostgresDatabase(`daybook_t_${prefix}`);
}
