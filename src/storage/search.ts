/**
 * The one search interface over both databases: a user's tasks and activities in a time window
 * that contain every given word as a word prefix, found through the full-text index of
 * migration 0002 (FTS5 on SQLite, a tsvector with GIN on PostgreSQL). Ranking, phrases and
 * snippets are the service's business; this layer narrows the records down, in one statement
 * that also brings what a result shows besides its text (a task's minutes, an activity's
 * category), so a search is one round trip.
 */
import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { indexedWordsOf } from '../lib/search-text.ts';
import type { Storage } from './database.ts';
import { DAY_MS } from '../lib/time.ts';

export type SearchSource = 'tasks' | 'activity';

export interface SearchDocument {
  source: SearchSource;
  id: string;
  /** Unix ms: a task's createdAt, an activity's start. */
  at: number;
  /** Task title or activity headline. */
  title: string;
  description: string | null;
  /** Tasks: their project, visibility and minutes logged to them, all time. */
  projectId?: string | null;
  visible?: boolean;
  minutes?: number;
  /** Activities: their task and category. */
  taskId?: string | null;
  categoryName?: string | null;
  categoryEmoji?: string | null;
}

export interface CandidateQuery {
  userId: string;
  /** Unix ms, both inclusive. */
  from: number;
  to: number;
  sources: SearchSource[];
  /**
   * Folded words (lib/search-text.ts). Every record holding each of them as the beginning of one
   * of its words is returned, possibly with others: the caller checks the words again.
   */
  words: string[];
}

/** A candidate row of either source: the columns of the other source are null. */
interface CandidateRow {
  source: SearchSource;
  id: string;
  at: number | string;
  title: string;
  description: string | null;
  project_id: string | null;
  visible: number | null;
  minutes: number | string | null;
  task_id: string | null;
  category_name: string | null;
  category_emoji: string | null;
}

const TABLES = {
  tasks: { table: 'tasks', time: 'created_at', title: 'title', scopeLetter: 't' },
  activity: { table: 'activities', time: 'start', title: 'headline', scopeLetter: 'a' },
} as const;

/**
 * The columns of a candidate row from the source's table aliased `r`, with what a result shows
 * besides: a task's minutes (all time), an activity's category.
 */
function candidateColumns(source: SearchSource) {
  const t = TABLES[source];
  const common = `'${source}' as source, r.id, r.${t.time} as at, r.${t.title} as title, r.description`;
  return source === 'tasks'
    ? sql.raw(`${common}, r.project_id, r.visible,
        (select sum(m.duration_minutes) from activities m where m.task_id = r.id) as minutes,
        null as task_id, null as category_name, null as category_emoji`)
    : sql.raw(`${common}, null as project_id, null as visible, null as minutes,
        r.task_id, (select c.name from categories c where c.id = r.category_id) as category_name,
        (select c.emoji from categories c where c.id = r.category_id) as category_emoji`);
}

const WEEK_MS = 7 * DAY_MS;

/**
 * The records of `q.sources` that may match (a superset of the true matches), with what their
 * results show, in one statement; order unspecified.
 */
export async function findSearchCandidates(storage: Storage, q: CandidateQuery): Promise<SearchDocument[]> {
  if (q.words.length === 0 || q.sources.length === 0) return [];
  const parts = q.sources.map((source) =>
    storage.dialect === 'postgres' ? postgresCandidates(source, q) : sqliteCandidates(source, q),
  );
  const rows = (await sql<CandidateRow>`${sql.join(parts, sql` union all `)}`.execute(storage.db)).rows;
  return rows.map(toDocument);
}

/** The numbers of the spans of `length` ms since 1970-01-01 that the window touches. */
function spansOf(q: CandidateQuery, length: number): number[] {
  const spans: number[] = [];
  for (let span = Math.floor(q.from / length); span <= Math.floor(q.to / length); span++) spans.push(span);
  return spans;
}

function toDocument(row: CandidateRow): SearchDocument {
  const base = { source: row.source, id: row.id, at: Number(row.at), title: row.title, description: row.description };
  return row.source === 'tasks'
    ? { ...base, projectId: row.project_id, visible: Boolean(row.visible), minutes: Number(row.minutes ?? 0) }
    : { ...base, taskId: row.task_id, categoryName: row.category_name, categoryEmoji: row.category_emoji };
}

/** Length of the FTS5 table's prefix index (migration 0002). */
const PREFIX_INDEX = 3;

/**
 * Prefixes the index is asked for. SQLite's tokenizer folds case and strips the diacritics of
 * Latin letters only, while foldWord strips them in every script: the index keeps "ανάπτυξη",
 * "йога" and "ёлка" with their accents, and a query folded to "ανα", "иог" or "ело" would miss
 * them. A folded prefix of ASCII characters is one both sides spell alike; any other word is
 * left to the ranking's own check, like a short word (the scope alone yields the candidates).
 */
const INDEX_FOLDS_ALIKE = /^[\x21-\x7e]+$/;

/**
 * FTS5 cannot filter on ordinary columns, so every index entry carries a scope word (kind, user
 * in hex, UTC day; written by the triggers of migration 0002) and the match names the scope
 * words of the window's days: the index itself yields only this user's records of those days.
 * Words are asked for by their first 3 characters, which the prefix index answers by skipping
 * through one posting list; shorter words, and words whose first characters the tokenizer folds
 * differently, are left to the caller's check (a query of only such words reads the scope: the
 * user's records of the window).
 */
function sqliteCandidates(source: SearchSource, q: CandidateQuery) {
  const t = TABLES[source];
  const user = Buffer.from(q.userId, 'utf8').toString('hex').toUpperCase();
  const scopes = spansOf(q, DAY_MS).map(
    (day) => `${t.scopeLetter}${user}d${new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '')}`,
  );
  // Each word is an FTS5 string (operators inside quotes are plain text) marked as a prefix.
  const quote = (word: string) => `"${word.replaceAll('"', '""')}"`;
  const prefixes = new Set(
    q.words
      .filter((w) => [...w].length >= PREFIX_INDEX)
      .map((w) => [...w].slice(0, PREFIX_INDEX).join(''))
      .filter((prefix) => INDEX_FOLDS_ALIKE.test(prefix)),
  );
  let match = `scope : (${scopes.map(quote).join(' OR ')})`;
  if (prefixes.size > 0) {
    match += ` AND {title description} : (${[...prefixes].map((p) => `${quote(p)}*`).join(' AND ')})`;
  }
  // CROSS JOIN keeps the index as the outer loop: otherwise SQLite may walk the user's rows by
  // (user_id, time) and run the whole full-text match once per row.
  return sql`
    select * from (select ${candidateColumns(source)}
    from search_index
    cross join search_documents d on d.doc = search_index.rowid
    cross join ${sql.raw(t.table)} r on r.id = d.record_id
    where search_index match ${match}
      and d.source = ${source}
      and r.user_id = ${q.userId}
      and r.${sql.raw(t.time)} >= ${q.from} and r.${sql.raw(t.time)} <= ${q.to})`;
}

/**
 * A PostgreSQL record's scope, as migration 0002 spells it: the user id's md5 (16 hex digits),
 * ".", the number of the 7-day span since 1970-01-01 of its time, ".".
 */
function postgresScope(userId: string, span: number): string {
  let user = userHashes.get(userId);
  if (user === undefined) {
    user = createHash('md5').update(userId, 'utf8').digest('hex').slice(0, 16);
    if (userHashes.size >= 10_000) userHashes.clear();
    userHashes.set(userId, user);
  }
  return `${user}.${span}.`;
}

/** User ids' md5 prefixes: an import asks for the same few users millions of times. */
const userHashes = new Map<string, string>();

/**
 * The lexemes of a task's or activity's `search_words` on PostgreSQL, joined by spaces (no word
 * holds one): what `daybook_search_words` would store for the row, computed by the importer so
 * the database does not run its Unicode folding per row (migration 0004).
 */
export function postgresSearchWords(userId: string, time: number, title: string, description: string | null): string {
  const scope = postgresScope(userId, Math.floor(time / WEEK_MS));
  return indexedWordsOf(`${title} ${description ?? ''}`)
    .map((word) => scope + word)
    .join(' ');
}

/**
 * Each indexed word carries its record's scope (the user id's md5 and the number of its 7-day
 * span; migration 0002), so every word becomes one prefix lexeme per span of the window and the
 * GIN index reads only this user's entries of those spans.
 */
function postgresCandidates(source: SearchSource, q: CandidateQuery) {
  const t = TABLES[source];
  const scopes = spansOf(q, WEEK_MS).map((span) => postgresScope(q.userId, span));
  const lexeme = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}':*`;
  const query = q.words.map((word) => `(${scopes.map((scope) => lexeme(scope + word)).join(' | ')})`).join(' & ');
  return sql`
    (select ${candidateColumns(source)}
    from ${sql.raw(t.table)} r
    where r.search_words @@ ${query}::tsquery
      and r.user_id = ${q.userId}
      and r.${sql.raw(t.time)} >= ${q.from} and r.${sql.raw(t.time)} <= ${q.to})`;
}
