import type { Command } from 'commander';
import type { CommandIo } from './context.ts';
import { loadConfig } from '../config.ts';
import { closeOnSignals, startServer } from '../server.ts';
import { migrate, openStorage } from '../storage/database.ts';

export function register(program: Command, { env, out, err }: CommandIo): void {
  program
    .command('serve')
    .description('start the HTTP API server (migrates the database first)')
    .action(async () => {
      const server = await startServer(loadConfig(env), { env, log: out });
      await closeOnSignals(server, err);
    });

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const storage = openStorage(loadConfig(env).databaseUrl);
      try {
        const applied = await migrate(storage);
        out(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      } finally {
        await storage.close();
      }
    });
}
