/**
 * The one search interface over both databases: a user's tasks and activities in a time window
 * that contain every given word as a word prefix, found through the full-text index of
 * migration 0002 (FTS5 on SQLite, a tsvector with GIN on PostgreSQL). Ranking, phrases and
 * snippets are the service's business; this layer only narrows the records down.
 */
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
  /** Words as typed; a record must contain each as the beginning of one of its words. */
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

/** Every record of `q.sources` matching all words; order unspecified. */
export async function findSearchCandidates(storage: Storage, q: CandidateQuery): Promise<SearchDocument[]> {
  if (q.words.length === 0) return [];
  const found: SearchDocument[] = [];
  for (const source of q.sources) {
    const rows = storage.dialect === 'postgres' ? await postgresCandidates(storage.db, source, q) : await sqliteCandidates(storage.db, source, q);
    for (const row of rows) found.push(toDocument(source, row));
  }
  return found;
}

function toDocument(source: SearchSource, row: CandidateRow): SearchDocument {
  const base = { source, id: row.id, at: Number(row.at), title: row.title, description: row.description };
  return source === 'tasks'
    ? { ...base, projectId: row.project_id ?? null, visible: Boolean(row.visible) }
    : { ...base, taskId: row.task_id ?? null, categoryId: row.category_id ?? null };
}

/**
 * FTS5 cannot filter on ordinary columns, so every index entry carries a scope word (kind, user
 * in hex, UTC day; written by the triggers of migration 0002) and the match names the scope
 * words of the window's days: the index itself yields only this user's records of those days.
 */
async function sqliteCandidates(db: Kysely<Database>, source: SearchSource, q: CandidateQuery): Promise<CandidateRow[]> {
  const t = TABLES[source];
  const user = Buffer.from(q.userId, 'utf8').toString('hex').toUpperCase();
  const scopes: string[] = [];
  for (let day = Math.floor(q.from / DAY_MS); day <= Math.floor(q.to / DAY_MS); day++) {
    scopes.push(`${t.scopeLetter}${user}d${new Date(day * DAY_MS).toISOString().slice(0, 10).replaceAll('-', '')}`);
  }
  // Each word is an FTS5 string (operators inside quotes are plain text) marked as a prefix.
  const quote = (word: string) => `"${word.replaceAll('"', '""')}"`;
  const match = `scope : (${scopes.map(quote).join(' OR ')}) AND {title description} : (${q.words
    .map((w) => `${quote(w)}*`)
    .join(' AND ')})`;
  const result = await sql<CandidateRow>`
    select ${candidateColumns(source)}
    from search_index
    join search_documents d on d.doc = search_index.rowid
    join ${sql.raw(t.table)} r on r.id = d.record_id
    where search_index match ${match}
      and d.source = ${source}
      and r.user_id = ${q.userId}
      and r.${sql.raw(t.time)} >= ${q.from} and r.${sql.raw(t.time)} <= ${q.to}`.execute(db);
  return result.rows;
}

/** The words become prefix lexemes folded by the same function that built the index. */
async function postgresCandidates(db: Kysely<Database>, source: SearchSource, q: CandidateQuery): Promise<CandidateRow[]> {
  const t = TABLES[source];
  const result = await sql<CandidateRow>`
    select ${candidateColumns(source)}
    from ${sql.raw(t.table)} r
    where r.user_id = ${q.userId}
      and r.${sql.raw(t.time)} >= ${q.from} and r.${sql.raw(t.time)} <= ${q.to}
      and r.search_words @@ (
        select string_agg('''' || replace(replace(daybook_search_fold(w), '\\', '\\\\'), '''', '''''') || ''':*', ' & ')::tsquery
        from unnest(${q.words}::text[]) as w
        where daybook_search_fold(w) <> '')`.execute(db);
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
