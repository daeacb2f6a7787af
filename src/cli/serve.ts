import type { Command } from 'commander';
import type { CommandIo } from './context.ts';
import { loadConfig } from '../config.ts';
import { migrate, openStorage } from '../storage/database.ts';

export function register(program: Command, { env, out, err }: CommandIo): void {
  program
    .command('serve')
    .description('start the HTTP API server (migrates the database first)')
    .action(async () => {
      // The server's modules (Fastify, the routes, OpenAPI) load for this command only: the
      // other commands start without them.
      const { closeOnSignals, startServer } = await import('../server.ts');
      await closeOnSignals(startServer(loadConfig(env), { env, log: out }), err);
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
