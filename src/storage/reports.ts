/**
 * Queries behind POST /report that the shared aggregation (aggregates.ts) does not cover:
 * who the report is about, day comments and single activities.
 * Every activity query is bounded by user and start, so it runs on the (user_id, start) index
 * and never reads other users' rows.
 */
import { CompiledQuery, type Kysely, PostgresAdapter, sql } from 'kysely';
import type { Storage } from './database.ts';
import { fixedQuery } from './fixed-query.ts';
import type { Database, UsersTable } from './schema.ts';

/** The user fields a report needs to bucket and label a person's time. */
export type ReportUser = Pick<
  UsersTable,
  'id' | 'email' | 'name' | 'display_name' | 'timezone' | 'week_start' | 'daily_target_minutes'
>;

const USER_FIELDS = ['id', 'email', 'name', 'display_name', 'timezone', 'week_start', 'daily_target_minutes'] as const;

/** Every user with an active membership in one of `teamIds`, each once, ordered by id. */
export async function activeMembersOf(db: Kysely<Database>, teamIds: string[]): Promise<ReportUser[]> {
  if (teamIds.length === 0) return [];
  return db
    .selectFrom('users')
    .select(USER_FIELDS)
    .where(
      'id',
      'in',
      db.selectFrom('team_members').select('user_id').where('team_id', 'in', teamIds).where('status', '=', 'active'),
    )
    .orderBy('id')
    .execute();
}

export interface DayComment {
  userId: string;
  date: string;
  comment: string;
}

/** Day comments of the users on local dates in [fromDate, toDate] (inclusive), by date. */
export async function dayCommentsBetween(
  db: Kysely<Database>,
  userIds: string[],
  fromDate: string,
  toDate: string,
): Promise<DayComment[]> {
  if (userIds.length === 0) return [];
  return DAY_COMMENTS.execute(db, String(userIds.length), [...userIds, fromDate, toDate]);
}

/** Its shape is the number of users (values: the users, then the first and last date). */
const DAY_COMMENTS = fixedQuery((db, values, shape) => {
  const users = Number(shape);
  return db
    .selectFrom('day_comments')
    .select(['user_id as userId', 'date', 'comment'])
    .where('user_id', 'in', values.slice(0, users) as string[])
    .where('date', '>=', values[users] as string)
    .where('date', '<=', values[users + 1] as string)
    .orderBy('date')
    .orderBy('user_id');
});

export interface ActivityDetail {
  id: string;
  start: number;
  durationMinutes: number;
  headline: string;
  description: string | null;
  taskId: string | null;
  taskTitle: string | null;
  projectId: string | null;
  projectName: string | null;
  categoryName: string | null;
  categoryEmoji: string | null;
}

export interface ActivityDetailQuery {
  userId: string;
  /** Unix ms, inclusive. */
  from: number;
  /** Unix ms, exclusive. */
  to: number;
  /** Only activities of these projects (own project, else the task's). */
  projectIds?: string[];
}

/**
 * Order of activity rows (docs/api.md, "POST /report"): `asc`/`desc` by start, ties by id ascending; `id` by
 * id alone. Ids are ASCII (`^[A-Za-z0-9_.:-]+$`), so SQLite's binary order and PostgreSQL's
 * `COLLATE "C"` are the plain code-unit order of the rows' ids (their prefix is constant),
 * whatever collation a PostgreSQL database was created with.
 */
export type ActivityOrder = 'asc' | 'desc' | 'id';

/** Rows per FETCH from the PostgreSQL cursor of eachActivity. */
const ACTIVITY_FETCH_ROWS = 500;

/**
 * Ranges up to this long are read on PostgreSQL by one plain query: a week of one person's
 * activities is a few hundred rows, and the cursor's transaction costs four more round trips
 * (begin, declare, close, commit) than the rows are worth.
 */
export const PLAIN_QUERY_RANGE_MS = 7 * 86_400_000;

/**
 * Runs `read` on one snapshot of the database, so that its statements see the same commits:
 * PostgreSQL in a repeatable read, read only transaction (its statements then share one
 * connection instead of running side by side); SQLite in a read transaction, which keeps one
 * WAL snapshot from its first read to its end.
 */
export function readSnapshot<T>(storage: Storage, read: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  if (storage.dialect === 'postgres') {
    return storage.db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(read);
  }
  // Read only: it never takes the write lock shared with the write thread (shareWrites).
  return storage.db.transaction().setAccessMode('read only').execute(read);
}

/**
 * One user's activities starting in [from, to), with their task, project and category names,
 * handed to `visit` one at a time in `order`, so that no caller holds all of them at once (a
 * 90-day export has thousands). One query, sorted once by the database, read from one snapshot:
 * - SQLite: the statement's rows are consumed as SQLite steps through them (`iterate()`),
 *   synchronously, while this request holds the one connection;
 * - PostgreSQL: a cursor in a repeatable read, read only transaction, fetched a few hundred
 *   rows at a time; ranges of a week or less in one plain query.
 * `visit` runs while the connection is held and must only do its own synchronous work.
 */
export async function eachActivity(
  storage: Storage,
  q: ActivityDetailQuery,
  order: ActivityOrder,
  visit: (activity: ActivityDetail) => void,
  fetchRows = ACTIVITY_FETCH_ROWS,
): Promise<void> {
  if (q.projectIds && q.projectIds.length === 0) return;
  const { sqlite } = storage;
  if (sqlite) {
    const { sql: text, parameters } = activityQuery(storage.db, q, order);
    await storage.db.connection().execute(async () => {
      for (const row of sqlite.prepare(text).iterate(parameters as unknown[])) visit(row as ActivityDetail);
    });
    return;
  }
  if (q.to - q.from <= PLAIN_QUERY_RANGE_MS) {
    for (const row of (await storage.db.executeQuery(activityQuery(storage.db, q, order))).rows)
      visit(row as ActivityDetail);
    return;
  }
  await storage.db
    .transaction()
    .setIsolationLevel('repeatable read')
    .setAccessMode('read only')
    .execute(async (trx) => {
      const rows = activityQuery(trx, q, order);
      await trx.executeQuery(
        CompiledQuery.raw(`declare activity_rows no scroll cursor for ${rows.sql}`, [...rows.parameters]),
      );
      for (;;) {
        const { rows } = await sql<ActivityDetail>`fetch forward ${sql.lit(fetchRows)} from activity_rows`.execute(trx);
        for (const row of rows) visit(row);
        if (rows.length < fetchRows) break;
      }
      await sql`close activity_rows`.execute(trx);
    });
}

/** The statement of eachActivity (values: the user, from, to, then the projects if any). */
function activityQuery(db: Kysely<Database>, q: ActivityDetailQuery, order: ActivityOrder) {
  const projects = q.projectIds ?? [];
  return ACTIVITY_ROWS.compile(db, `${order} ${q.projectIds ? projects.length : 'all'}`, [
    q.userId,
    q.from,
    q.to,
    ...projects,
  ]);
}

/** Its shape is the order, then the number of projects or `all`. */
const ACTIVITY_ROWS = fixedQuery((db, values, shape) => {
  const [order, projects] = shape.split(' ') as [ActivityOrder, string];
  const id = db.getExecutor().adapter instanceof PostgresAdapter ? sql<string>`a.id collate "C"` : sql<string>`a.id`;
  // Selected under the names of ActivityDetail: the rows are handed on as they come. The task
  // title is a lookup per row rather than a join: joined, PostgreSQL hashes the whole tasks
  // table for a few thousand rows (70 ms instead of 20 on the benchmark's 90 days).
  let query = db
    .selectFrom('activities as a')
    .leftJoin('projects as p', 'p.id', 'a.effective_project_id')
    .leftJoin('categories as c', 'c.id', 'a.category_id')
    .select([
      'a.id',
      'a.start',
      'a.duration_minutes as durationMinutes',
      'a.headline',
      'a.description',
      'a.task_id as taskId',
      (eb) => eb.selectFrom('tasks as t').select('t.title').whereRef('t.id', '=', 'a.task_id').as('taskTitle'),
      'a.effective_project_id as projectId',
      'p.name as projectName',
      'c.name as categoryName',
      'c.emoji as categoryEmoji',
    ])
    .where('a.user_id', '=', values[0] as string)
    .where('a.start', '>=', values[1] as number)
    .where('a.start', '<', values[2] as number);
  if (projects !== 'all') query = query.where('a.effective_project_id', 'in', values.slice(3) as string[]);
  return order === 'id' ? query.orderBy(id) : query.orderBy('a.start', order).orderBy(id);
});
