/**
 * `daybook backup --out FILE` and `daybook restore --from FILE` (docs/operations.md, "Backups"):
 * SQLite through its online backup, a consistent copy while the server runs; PostgreSQL through
 * `pg_dump --format=custom` and `pg_restore`, the PostgreSQL tools made for it.
 */
import { execFile } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { openStorage } from '../storage/database.ts';
import { type CommandIo, UsageError } from './context.ts';

const run = promisify(execFile);

/** Runs a PostgreSQL client tool, telling how to get it when it is missing. */
async function postgresTool(tool: 'pg_dump' | 'pg_restore', args: string[]): Promise<void> {
  try {
    await run(tool, args, { maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT')
      throw new UsageError(`${tool} not found: install the PostgreSQL client tools (Debian: postgresql-client)`);
    throw new Error(`${tool} failed: ${(e.stderr ?? e.message).trim()}`);
  }
}

export function register(program: Command, { out, env }: CommandIo): void {
  program
    .command('backup')
    .description(
      'a consistent copy of the database while the server runs (SQLite: a database file; PostgreSQL: a pg_dump archive)',
    )
    .requiredOption('--out <file>', 'where to write the copy (must not exist)')
    .action(async (o: { out: string }) => {
      if (existsSync(o.out)) throw new UsageError(`--out ${o.out} already exists: choose a new file`);
      const url = loadConfig(env).databaseUrl;
      const storage = openStorage(url);
      try {
        if (storage.dialect === 'postgres') {
          await postgresTool('pg_dump', ['--format=custom', '--no-owner', `--file=${o.out}`, `--dbname=${url}`]);
        } else {
          if (storage.inMemory) throw new UsageError('an in-memory database has nothing to back up');
          await storage.sqlite!.backup(o.out);
        }
        out(`backed up ${storage.describe} to ${o.out}`);
      } finally {
        await storage.close();
      }
    });

  program
    .command('restore')
    .description('replace the database with a backup (stop the server first)')
    .requiredOption('--from <file>', 'a file written by daybook backup')
    .action(async (o: { from: string }) => {
      if (!existsSync(o.from)) throw new UsageError(`--from ${o.from} does not exist`);
      const url = loadConfig(env).databaseUrl;
      if (url.startsWith('postgres')) {
        await postgresTool('pg_restore', ['--clean', '--if-exists', '--no-owner', `--dbname=${url}`, o.from]);
        out(`restored ${o.from} into ${url.replace(/\/\/[^@/]*@/, '//')}`);
        return;
      }
      const file = url.slice('sqlite:'.length);
      if (file === '' || file === ':memory:') throw new UsageError('an in-memory database cannot be restored into');
      // The backup's own online copy into the database's place; the old WAL goes with it.
      const backup = openStorage(`sqlite:${o.from}`);
      try {
        for (const suffix of ['-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
        await backup.sqlite!.backup(file);
      } finally {
        await backup.close();
      }
      out(`restored ${o.from} into sqlite:${file}`);
    });
}
