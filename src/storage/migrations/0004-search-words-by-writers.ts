/**
 * PostgreSQL: `search_words` of tasks and activities becomes an ordinary column that writers may
 * fill themselves. As a generated column the database computed it for every row written with
 * `daybook_search_words` (two Unicode normalisations and regular expressions per row: 70 % of the
 * time of an import). Now the importer computes the same lexemes in TypeScript
 * (storage/search.ts `postgresSearchWords`) and hands them over; for every other writer a
 * trigger keeps the column as the generated one did:
 * - an insert without `search_words` gets them computed;
 * - an update that changes the user, time, title or description without giving new words gets
 *   them recomputed; one that changes none of those keeps them.
 * The triggers' WHEN conditions run without calling the function, so a row that brings its own
 * words costs nothing more. SQLite keeps its FTS5 index and triggers (migration 0002).
 */
import { type Kysely, PostgresAdapter, sql } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema of their day
type Db = Kysely<any>;

const SOURCES = [
  { table: 'tasks', time: 'created_at', title: 'title' },
  { table: 'activities', time: 'start', title: 'headline' },
] as const;

/** The expression of migration 0002's generated column, on the trigger row `row` or unqualified. */
function wordsOf(row: 'new' | null, s: (typeof SOURCES)[number]): string {
  const col = (name: string) => (row ? `${row}.${name}` : name);
  const scope = `left(md5(${col('user_id')}), 16) || '.' || floor(${col(s.time)}::numeric / 604800000)::text || '.'`;
  return `daybook_search_words(${scope}, ${col(s.title)} || ' ' || coalesce(${col('description')}, ''))`;
}

export async function up(db: Db): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const s of SOURCES) {
    const watched = ['user_id', s.time, s.title, 'description'];
    await sql.raw(`alter table ${s.table} alter column search_words drop expression`).execute(db);
    await sql
      .raw(`create function daybook_${s.table}_search_words() returns trigger language plpgsql as $$
        begin new.search_words := ${wordsOf('new', s)}; return new; end $$`)
      .execute(db);
    await sql
      .raw(`create trigger ${s.table}_search_words_insert before insert on ${s.table}
        for each row when (new.search_words is null) execute function daybook_${s.table}_search_words()`)
      .execute(db);
    await sql
      .raw(`create trigger ${s.table}_search_words_update before update on ${s.table}
        for each row when (new.search_words is not distinct from old.search_words
          and (${watched.map((c) => `new.${c}`).join(', ')}) is distinct from (${watched.map((c) => `old.${c}`).join(', ')}))
        execute function daybook_${s.table}_search_words()`)
      .execute(db);
  }
}

export async function down(db: Db): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const s of SOURCES) {
    await sql.raw(`drop trigger if exists ${s.table}_search_words_insert on ${s.table}`).execute(db);
    await sql.raw(`drop trigger if exists ${s.table}_search_words_update on ${s.table}`).execute(db);
    await sql.raw(`drop function if exists daybook_${s.table}_search_words()`).execute(db);
    // Back to the generated column of migration 0002 (its values are recomputed).
    await sql.raw(`drop index if exists ${s.table}_search_words`).execute(db);
    await sql.raw(`alter table ${s.table} drop column search_words`).execute(db);
    await sql
      .raw(`alter table ${s.table} add column search_words tsvector not null
        generated always as (${wordsOf(null, s)}) stored`)
      .execute(db);
    await sql
      .raw(`create index ${s.table}_search_words on ${s.table} using gin (search_words)
        with (fastupdate = on, gin_pending_list_limit = 512)`)
      .execute(db);
  }
}
