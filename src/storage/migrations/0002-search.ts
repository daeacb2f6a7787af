/**
 * Full-text search over tasks and activities (docs/api.md, "POST /search"), kept current by the database
 * itself on every write path, upserts included.
 *
 * SQLite: one FTS5 index for both kinds of record, filled by triggers. Besides the text, each
 * entry carries a scope word naming its kind, user and UTC day, so a search asks the index for
 * one user's days only instead of filtering every user's matches afterwards. Words are looked up
 * through a prefix index of their first 3 characters: FTS5 answers a longer prefix by merging the
 * postings of every matching word of every user, while a prefix index is one list it can skip
 * through to the scope's entries (storage/search.ts). Positions are not kept (detail=column):
 * phrases are checked by the ranking. FTS5 rowids are numbers handed out by `search_documents`,
 * because a plain table's own rowid may change on VACUUM.
 *
 * PostgreSQL: a generated tsvector column per table with a GIN index. Each word is stored
 * behind a scope too (user and 7-day span), so a prefix search reads only the user's entries
 * of the window's spans rather than every user's words with that prefix. The words come
 * from functions that fold and split text exactly as src/lib/search-text.ts does.
 */
import { type Kysely, PostgresAdapter, sql } from 'kysely';
import { INDEXED_WORD_LENGTH, postgresDiacriticClass, postgresSeparatorClass } from '../../lib/search-text.ts';

// biome-ignore lint/suspicious/noExplicitAny: migrations are written against the schema of their day
type Db = Kysely<any>;

/** unicode61 with the word characters of search-text.ts: letters, digits, marks, private use, unassigned. */
export const TOKENIZER = `unicode61 remove_diacritics 2 categories 'L* N* M* Co Cn'`;

export const SOURCES = [
  {
    table: 'tasks',
    source: 'tasks',
    scopeLetter: 't',
    time: 'created_at',
    title: 'title',
    watched: 'id, user_id, created_at, title, description',
  },
  {
    table: 'activities',
    source: 'activity',
    scopeLetter: 'a',
    time: 'start',
    title: 'headline',
    watched: 'id, user_id, start, headline, description',
  },
] as const;

/**
 * The scope word of a row: kind letter, user id in hex, "d", UTC day (see storage/search.ts).
 * Also used by the importer's set-wise indexing (storage/activity-bulk.ts).
 */
export function scopeOf(row: string, letter: string, time: string): string {
  return `'${letter}' || hex(${row}.user_id) || 'd' || strftime('%Y%m%d', ${row}.${time} / 1000, 'unixepoch')`;
}

/** The full-text index with the given tokenizer (migration 0005 builds it again with another). */
export async function createSearchIndex(db: Db, tokenizer: string): Promise<void> {
  await sql
    .raw(
      `create virtual table search_index using fts5(scope, title, description,
        content='', contentless_delete=1, detail=column, prefix='3', tokenize="${tokenizer}")`,
    )
    .execute(db);
}

/** PostgreSQL's words of a text as wordsOf() finds them, split at `separators` (a bracket expression). */
export async function createSearchWordsFunction(db: Db, separators: string): Promise<void> {
  // Words as wordsOf(), each behind the record's scope, without positions (phrases are checked
  // by the ranking).
  await sql
    .raw(`create or replace function daybook_search_words(scope text, value text) returns tsvector
      language sql immutable strict parallel safe
      as $words$ select coalesce(array_to_tsvector(array_agg(distinct scope || left(word, ${INDEXED_WORD_LENGTH}))), ''::tsvector)
        from regexp_split_to_table(daybook_search_fold(value), '${separators}+') as word
        where word <> '' $words$`)
    .execute(db);
}

async function upSqlite(db: Db): Promise<void> {
  await sql`create table search_documents (
    doc integer primary key,
    source text not null,
    record_id text not null,
    unique (source, record_id)
  )`.execute(db);
  await createSearchIndex(db, TOKENIZER);

  for (const s of SOURCES) {
    const docOf = (row: 'new' | 'old') =>
      `(select doc from search_documents where source = '${s.source}' and record_id = ${row}.id)`;
    const indexNew = `
      insert into search_documents (source, record_id) values ('${s.source}', new.id)
        on conflict (source, record_id) do nothing;
      insert into search_index (rowid, scope, title, description)
        values (${docOf('new')}, ${scopeOf('new', s.scopeLetter, s.time)}, new.${s.title}, new.description);`;
    // An INSERT OR REPLACE removes the old row without a delete trigger: drop its entry first.
    await sql
      .raw(`create trigger ${s.table}_search_insert after insert on ${s.table} begin
        delete from search_index where rowid = ${docOf('new')};
        ${indexNew}
      end`)
      .execute(db);
    await sql
      .raw(`create trigger ${s.table}_search_update after update of ${s.watched} on ${s.table} begin
        delete from search_index where rowid = ${docOf('old')};
        update search_documents set record_id = new.id where source = '${s.source}' and record_id = old.id;
        ${indexNew}
      end`)
      .execute(db);
    await sql
      .raw(`create trigger ${s.table}_search_delete after delete on ${s.table} begin
        delete from search_index where rowid = ${docOf('old')};
        delete from search_documents where source = '${s.source}' and record_id = old.id;
      end`)
      .execute(db);

    await sql
      .raw(`insert into search_documents (source, record_id) select '${s.source}', id from ${s.table}`)
      .execute(db);
    await sql
      .raw(`insert into search_index (rowid, scope, title, description)
        select d.doc, ${scopeOf('r', s.scopeLetter, s.time)}, r.${s.title}, r.description
        from ${s.table} r join search_documents d on d.source = '${s.source}' and d.record_id = r.id`)
      .execute(db);
  }
}

async function upPostgres(db: Db): Promise<void> {
  // Folding as foldWord(): strip diacritics after NFD, recompose, lowercase, final sigma as sigma.
  await sql
    .raw(`create function daybook_search_fold(value text) returns text
      language sql immutable strict parallel safe
      as $fold$ select replace(lower(normalize(regexp_replace(normalize(value, NFD),
        '${postgresDiacriticClass()}', '', 'g'), NFC)), 'ς', 'σ') $fold$`)
    .execute(db);
  await createSearchWordsFunction(db, postgresSeparatorClass());

  for (const s of SOURCES) {
    // The scope, as storage/search.ts spells it: the user id's md5 (16 hex digits), ".", the
    // number of the 7-day span since 1970-01-01, ".".
    const scope = `left(md5(user_id), 16) || '.' || floor(${s.time}::numeric / 604800000)::text || '.'`;
    await sql
      .raw(`alter table ${s.table} add column search_words tsvector not null
        generated always as (daybook_search_words(${scope}, ${s.title} || ' ' || coalesce(description, ''))) stored`)
      .execute(db);
    // Every search reads GIN's pending list whole; keeping it small (512 kB) bounds that cost
    // while imports still add entries in batches.
    await sql
      .raw(`create index ${s.table}_search_words on ${s.table} using gin (search_words)
        with (fastupdate = on, gin_pending_list_limit = 512)`)
      .execute(db);
  }
}

export async function up(db: Db): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) await upPostgres(db);
  else await upSqlite(db);
}

export async function down(db: Db): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    for (const table of ['tasks', 'activities']) {
      await sql.raw(`alter table ${table} drop column if exists search_words`).execute(db);
    }
    await sql`drop function if exists daybook_search_words(text, text)`.execute(db);
    await sql`drop function if exists daybook_search_fold(text)`.execute(db);
    return;
  }
  for (const s of SOURCES) {
    for (const event of ['insert', 'update', 'delete']) {
      await sql.raw(`drop trigger if exists ${s.table}_search_${event}`).execute(db);
    }
  }
  await sql`drop table if exists search_index`.execute(db);
  await sql`drop table if exists search_documents`.execute(db);
}
