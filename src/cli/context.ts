/** What every command needs: the configuration and an open, migrated database. */
import { loadConfig } from '../config.ts';
import { migrate, openStorage, type Storage } from '../storage/database.ts';

/** A mistake in how a command was called: printed without a stack, exit code 2. */
export class UsageError extends Error {}

export async function withStorage<T>(fn: (storage: Storage) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const storage = openStorage(config.databaseUrl);
  try {
    await migrate(storage);
    return await fn(storage);
  } finally {
    await storage.close();
  }
}

export function parseChoice<T extends string>(name: string, value: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new UsageError(`${name} must be one of ${choices.join(', ')} (got "${value}")`);
  }
  return value as T;
}
