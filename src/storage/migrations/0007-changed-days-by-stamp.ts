/**
 * `changed_days` by the time of their stamp: after every write, the days it stamped are stamped
 * again with the time of its commit (storage/activities.ts, restampChangedDays), found by their
 * first stamp. Without an index that was a read of the whole table per write (27,000 rows on the
 * benchmark dataset, several milliseconds of each small write).
 */
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema of their day
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema.createIndex('changed_days_changed_at').on('changed_days').column('changed_at').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('changed_days_changed_at').ifExists().execute();
}
