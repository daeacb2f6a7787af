/**
 * SQLite's full-text index is merged by the writes themselves, a bounded number of pages each,
 * instead of by FTS5's automatic merging (`mergeSearchIndex`, storage/writes.ts).
 *
 * FTS5 merges after every 64 leaf pages written, up to 64 pages × the number of levels of its
 * structure in one step, and every `optimize` (after each import) puts the index one level
 * higher, up to 64 levels. On the benchmark database (18 levels) those steps were 56–110 ms of
 * one write, every 40–80 batches of 1,000 activities, while every request of the process waited.
 * With automatic merging off, each write merges at most its share and no write takes a step
 * of the size the index has grown to.
 *
 * PostgreSQL: nothing (its index is a GIN index, kept by the database).
 */
import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema of their day
type Db = Kysely<any>;

/** FTS5's own default. */
const FTS5_AUTOMERGE = 4;

async function setAutomerge(db: Db, value: number): Promise<void> {
  // FTS5 takes the value as an integer only: a bound number is a real to better-sqlite3.
  await sql`insert into search_index (search_index, rank) values ('automerge', ${sql.lit(value)})`.execute(db);
}

export async function up(db: Db): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await setAutomerge(db, 0);
}

export async function down(db: Db): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) return;
  await setAutomerge(db, FTS5_AUTOMERGE);
}
