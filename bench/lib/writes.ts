/**
 * What the scenarios that write (`write`, `mixed`) need around their load: keys with the
 * `activity:write` scope, ids no earlier run used, and afterwards the removal of everything they
 * wrote, so the benchmark database is left as the import made it and later runs stay comparable.
 */
import { sql } from 'kysely';
import { findKeyByHash, insertApiKey } from '../../src/storage/accounts.ts';
import { deleteActivities } from '../../src/storage/activities.ts';
import { openStorage, type Storage } from '../../src/storage/database.ts';
import { deleteTasks } from '../../src/storage/tasks.ts';
import { tidyAfterBulkWrite, writeRecords } from '../../src/storage/writes.ts';
import { generateApiKey, hashApiKey } from '../../src/services/api-keys.ts';
import type { DatasetFacts } from '../dataset.ts';

/** Every id the benchmark writes begins with this (the demo's ids never do). */
const WRITTEN = 'bench-w-';

/** The prefix of this run's ids: its start time and process, then a counter per record. */
export function runPrefix(): string {
  return `${WRITTEN}${Date.now().toString(36)}-${process.pid}-`;
}

/** Text ids from `prefix` (inclusive) up to the next prefix: ids use only characters below `~`. */
const idRange = (prefix: string) => [prefix, `${prefix}~`] as const;

/**
 * A key with `activity:write` for each of `users`: the dataset's own key where it has the scope
 * (the demo's all-scope keys do since the scope exists), else a key made here as
 * `daybook keys create` makes one, removed again by `drop()`.
 */
export async function writeKeys(
  databaseUrl: string,
  facts: DatasetFacts,
  users: readonly string[],
): Promise<{ keys: Record<string, string>; made: number; drop(): Promise<void> }> {
  const storage = openStorage(databaseUrl);
  const keys: Record<string, string> = {};
  const made: string[] = [];
  try {
    for (const user of users) {
      const own = facts.keys[user]!;
      const found = await findKeyByHash(storage.db, hashApiKey(own));
      if (found?.scopes.includes('activity:write')) {
        keys[user] = own;
        continue;
      }
      const key = generateApiKey();
      const id = `key_bench_write_${made.length}_${Date.now().toString(36)}`;
      await insertApiKey(storage.db, {
        id,
        userId: user,
        name: 'Benchmark writes',
        keyHash: hashApiKey(key),
        scopes: ['activity:write'],
        createdAt: Date.now(),
      });
      made.push(id);
      keys[user] = key;
    }
  } finally {
    await storage.close();
  }
  return {
    keys,
    made: made.length,
    drop: async () => {
      if (made.length === 0) return;
      const s = openStorage(databaseUrl);
      try {
        await s.db.deleteFrom('api_keys').where('id', 'in', made).execute();
      } finally {
        await s.close();
      }
    },
  };
}

/** How many activities and tasks with ids from `prefix` are stored. */
export async function countWritten(
  databaseUrl: string,
  prefix: string,
): Promise<{ activities: number; tasks: number }> {
  const storage = openStorage(databaseUrl);
  try {
    const [from, to] = idRange(prefix);
    const count = async (table: 'activities' | 'tasks') =>
      Number(
        (
          await storage.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('id', '>=', from)
            .where('id', '<', to)
            .executeTakeFirstOrThrow()
        ).n,
      );
    return { activities: await count('activities'), tasks: await count('tasks') };
  } finally {
    await storage.close();
  }
}

/**
 * Deletes every activity and task whose id begins with `prefix` (a run's, or `bench-w-` for
 * whatever any run left) through the write path the API uses, so rollups, the search index and
 * the summaries' changed days follow; the tasks' own activities go with them. Then the search
 * index is merged again (SQLite) or the statistics refreshed (PostgreSQL, after a vacuum when
 * there were many), as after the import.
 * Returns the number of records deleted.
 */
export async function scrubWritten(databaseUrl: string, prefix = WRITTEN): Promise<number> {
  const storage = openStorage(databaseUrl);
  try {
    const [from, to] = idRange(prefix);
    const byUser = async (table: 'activities' | 'tasks') => {
      const rows = await storage.db
        .selectFrom(table)
        .select(['id', 'user_id'])
        .where('id', '>=', from)
        .where('id', '<', to)
        .where('id', 'like', sql<string>`${`${prefix}%`}`)
        .execute();
      const users = new Map<string, string[]>();
      for (const r of rows) {
        const ids = users.get(r.user_id) ?? [];
        ids.push(r.id);
        users.set(r.user_id, ids);
      }
      return users;
    };
    let deleted = 0;
    deleted += await deleteEach(storage, await byUser('tasks'), deleteTasks);
    deleted += await deleteEach(storage, await byUser('activities'), deleteActivities);
    // PostgreSQL keeps deleted rows until a vacuum: after many, one now rather than autovacuum
    // during a later scenario.
    if (storage.dialect === 'postgres' && deleted > 10_000) await sql`vacuum (analyze)`.execute(storage.db);
    else if (deleted > 0) await tidyAfterBulkWrite(storage);
    return deleted;
  } finally {
    await storage.close();
  }
}

async function deleteEach(
  storage: Storage,
  users: Map<string, string[]>,
  remove: typeof deleteActivities,
): Promise<number> {
  let deleted = 0;
  for (const [user, ids] of users) {
    for (let i = 0; i < ids.length; i += 5_000) {
      const chunk = ids.slice(i, i + 5_000);
      deleted += (await writeRecords(storage, {}, (session) => remove(session, user, chunk))).length;
    }
  }
  return deleted;
}
