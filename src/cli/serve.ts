import type { Command } from 'commander';
import { loadConfig } from '../config.ts';
import { closeOnSignals, startServer } from '../server.ts';
import { migrate, openStorage } from '../storage/database.ts';

export function register(program: Command): void {
  program
    .command('serve')
    .description('start the HTTP API server (migrates the database first)')
    .action(async () => {
      const server = await startServer(loadConfig());
      closeOnSignals(server);
    });

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async () => {
      const storage = openStorage(loadConfig().databaseUrl);
      try {
        const applied = await migrate(storage);
        console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
      } finally {
        await storage.close();
      }
    });
}
