/**
 * Heartbeats of editor plugins (decisions §8), stored as sent: the time they stand for is
 * derived from them into activities and tasks (services/heartbeats). `dedupe_key` holds the
 * fields that make two heartbeats the same (§8.5), so a resent queue is stored once.
 */
import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema of their day
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('heartbeats')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('time', 'double precision', (c) => c.notNull())
    .addColumn('entity', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('project', 'text')
    .addColumn('branch', 'text')
    .addColumn('language', 'text')
    .addColumn('is_write', 'integer')
    .addColumn('lines', 'integer')
    .addColumn('lineno', 'integer')
    .addColumn('cursorpos', 'integer')
    .addColumn('dependencies', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('machine', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('heartbeats_user_dedupe')
    .on('heartbeats')
    .columns(['user_id', 'dedupe_key'])
    .unique()
    .execute();
  await db.schema.createIndex('heartbeats_user_time').on('heartbeats').columns(['user_id', 'time']).execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('heartbeats').ifExists().execute();
}
