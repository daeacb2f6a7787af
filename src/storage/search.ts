/**
 * The one search interface over both databases: a user's tasks and activities in a time window
 * that contain every given word as a word prefix, found through the full-text index of
 * migration 0002 (FTS5 on SQLite, a tsvector with GIN on PostgreSQL). Ranking, phrases and
 * snippets are the service's business; this layer only narrows the records down.
 */
import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Storage } from './database.ts';
import type { Database } from './schema.ts';

export type SearchSource = 'tasks' | 'activity';

export interface SearchDocument {
  source: SearchSource;
  id: string;
  /** Unix ms: a task's createdAt, an activity's start. */
  at: number;
  /** Task title or activity headline. */
  title: string;
  description: string | null;
  /** Tasks. */
  projectId?: string | null;
  visible?: boolean;
  /** Activities. */
  taskId?: string | null;
  categoryId?: string | null;
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

interface CandidateRow {
  id: string;
  at: number | string;
  title: string;
  description: string | null;
  project_id?: string | null;
  visible?: number;
  task_id?: string | null;
  category_id?: string | null;
}

const TABLES = {
  tasks: { table: 'tasks', time: 'created_at', title: 'title', scopeLetter: 't', extra: ['project_id', 'visible'] },
  activity: { table: 'activities', time: 'start', title: 'headline', scopeLetter: 'a', extra: ['task_id', 'category_id'] },
} as const;

/** The columns a candidate row needs, from the table aliased `r`. */
function candidateColumns(source: SearchSource) {
  const t = TABLES[source];
  return sql.raw([`r.id`, `r.${t.time} as at`, `r.${t.title} as title`, 'r.description', ...t.extra.map((c) => `r.${c}`)].join(', '));
}

const DAY_MS = 86_400_000;
const WEEK_MS = 7 * DAY_MS;

/** The records of `q.sources` that may match (a superset of the true matches); order unspecified. */
export async function findSearchCandidates(storage: Storage, q: CandidateQuery): Promise<SearchDocument[]> {
  if (q.words.length === 0) return [];
  const found: SearchDocument[] = [];
  for (const source of q.sources) {
    const rows = storage.dialect === 'postgres' ? await postgresCandidates(storage.db, source, q) : await sqliteCandidates(storage.db, source, q);
    for (const row of rows) found.push(toDocument(source, row));
  }
  return found;
}

/** The numbers of the spans of `length` ms since 1970-01-01 that the window touches. */
function spansOf(q: CandidateQuery, length: number): number[] {
  const spans: number[] = [];
  for (let span = Math.floor(q.from / length); span <= Math.floor(q.to / length); span++) spans.push(span);
  return spans;
}

function toDocument(source: SearchSource, row: CandidateRow): SearchDocument {
  const base = { source, id: row.id, at: Number(row.at), title: row.title, description: row.description };
  return source === 'tasks'
    ? { ...base, projectId: row.project_id ?? null, visible: Boolean(row.visible) }
    : { ...base, taskId: row.task_id ?? null, categoryId: row.category_id ?? null };
}

/** Length of the FTS5 table's prefix index (migration 0002). */
const PREFIX_INDEX = 3;

/**
 * FTS5 cannot filter on ordinary columns, so every index entry carries a scope word (kind, user
 * in hex, UTC day; written by the triggers of migration 0002) and the match names the scope
 * words of the window's days: the index itself yields only this user's records of those days.
 * Words are asked for by their first 3 characters, which the prefix index answers by skipping
 * through one posting list; shorter words are left to the caller's check (a query of short
 * words only reads the scope: the user's records of the window).
 */
async function sqliteCandidates(db: Kysely<Database>, source: SearchSource, q: CandidateQuery): Promise<CandidateRow[]> {
  const t = TABLES[source];
  const user = Buffer.from(q.userId, 'utf8').toString('hex').toUpperCase();
  const scopes = spansOf(q, DAY_MS).map(
    (day) => `${t.scopeLetter}${user}d${new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '')}`,
  );
  // Each word is an FTS5 string (operators inside quotes are plain text) marked as a prefix.
  const quote = (word: string) => `"${word.replaceAll('"', '""')}"`;
  const prefixes = new Set(
    q.words.filter((w) => [...w].length >= PREFIX_INDEX).map((w) => [...w].slice(0, PREFIX_INDEX).join('')),
  );
  let match = `scope : (${scopes.map(quote).join(' OR ')})`;
  if (prefixes.size > 0) {
    match += ` AND {title description} : (${[...prefixes].map((p) => `${quote(p)}*`).join(' AND ')})`;
  }
  // CROSS JOIN keeps the index as the outer loop: otherwise SQLite may walk the user's rows by
  // (user_id, time) and run the whole full-text match once per row.
  const result = await sql<CandidateRow>`
    select ${candidateColumns(source)}
    from search_index
    cross join search_documents d on d.doc = search_index.rowid
    cross join ${sql.raw(t.table)} r on r.id = d.record_id
    where search_index match ${match}
      and d.source = ${source}
      and r.user_id = ${q.userId}
      and r.${sql.raw(t.time)} >= ${q.from} and r.${sql.raw(t.time)} <= ${q.to}`.execute(db);
  return result.rows;
}

/**
 * Each indexed word carries its record's scope (the user id's md5 and the number of its 7-day
 * span; migration 0002), so every word becomes one prefix lexeme per span of the window and the
 * GIN index reads only this user's entries of those spans.
 */
async function postgresCandidates(db: Kysely<Database>, source: SearchSource, q: CandidateQuery): Promise<CandidateRow[]> {
  const t = TABLES[source];
  const user = createHash('md5').update(q.userId, 'utf8').digest('hex').slice(0, 16);
  const scopes = spansOf(q, WEEK_MS).map((span) => `${user}.${span}.`);
  const lexeme = (text: string) => `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}':*`;
  const query = q.words.map((word) => `(${scopes.map((scope) => lexeme(scope + word)).join(' | ')})`).join(' & ');
  const result = await sql<CandidateRow>`
    select ${candidateColumns(source)}
    from ${sql.raw(t.table)} r
    where r.search_words @@ ${query}::tsquery
      and r.user_id = ${q.userId}
      and r.${sql.raw(t.time)} >= ${q.from} and r.${sql.raw(t.time)} <= ${q.to}`.execute(db);
  return result.rows;
}

/** Minutes logged to each task, all time. */
export async function taskMinutes(db: Kysely<Database>, taskIds: string[]): Promise<Map<string, number>> {
  if (taskIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('activities')
    .select((eb) => ['task_id', eb.fn.sum<number | string>('duration_minutes').as('minutes')])
    .where('task_id', 'in', taskIds)
    .groupBy('task_id')
    .execute();
  return new Map(rows.map((r) => [r.task_id!, Number(r.minutes)]));
}

export async function categoriesById(
  db: Kysely<Database>,
  ids: string[],
): Promise<Map<string, { name: string; emoji: string | null }>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('categories').select(['id', 'name', 'emoji']).where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, { name: r.name, emoji: r.emoji }]));
}
