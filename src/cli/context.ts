/**
 * What every command needs: where to write, the environment it runs in, and an open, migrated
 * database. A command writes only through these, so that `runCli` (./run.ts) can run it on any
 * streams, in a test as in the `daybook` process.
 */
import { existsSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { loadConfig } from '../config.ts';
import { migrate, openStorage, type Storage } from '../storage/database.ts';

/** A mistake in how a command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {}

/** Standard output or error: a terminal says so (progress bars, help width), anything else does not. */
export interface OutputStream extends Writable {
  isTTY?: boolean;
  columns?: number;
}

/** Where a run of the command line writes and which environment it reads its settings from. */
export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
}

/** What a command module's `register` is given, bound to one run. */
export interface CommandIo extends CliIo {
  /** Writes a line to standard output. */
  out(line: string): void;
  /** Writes a line to standard error. */
  err(line: string): void;
  withStorage<T>(fn: (storage: Storage) => Promise<T>): Promise<T>;
}

export function commandIo(io: CliIo): CommandIo {
  return {
    ...io,
    out: (line) => io.stdout.write(`${line}\n`),
    err: (line) => io.stderr.write(`${line}\n`),
    withStorage: async (fn) => {
      const config = loadConfig(io.env);
      // A command run from another directory would otherwise create ./data/daybook.db there, silently.
      const file = config.databaseUrl.startsWith('sqlite:') ? config.databaseUrl.slice('sqlite:'.length) : '';
      if (file !== '' && file !== ':memory:' && !existsSync(file))
        io.stderr.write(`daybook: no database at ${file}: creating a new, empty one (DAYBOOK_DATABASE_URL)\n`);
      const storage = openStorage(config.databaseUrl);
      try {
        await migrate(storage);
        return await fn(storage);
      } finally {
        await storage.close();
      }
    },
  };
}

export function parseChoice<T extends string>(name: string, value: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(`${name} must be one of ${choices.join(', ')} (got "${value}")`);
  }
  return value as T;
}

/**
 * A list as people and scripts read it: a header row and tab-separated rows, or with `json` one
 * JSON array of objects (the same fields, under the same names).
 */
export function printList(
  out: (line: string) => void,
  rows: Record<string, string | number | boolean | null>[],
  columns: string[],
  json: boolean,
): void {
  if (json) {
    out(JSON.stringify(rows, null, 2));
    return;
  }
  out(columns.join('\t'));
  for (const row of rows) out(columns.map((c) => String(row[c] ?? '')).join('\t'));
}
