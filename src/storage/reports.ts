/**
 * Queries behind POST /report that the shared aggregation (aggregates.ts) does not cover:
 * who the report is about, day comments and single activities.
 * Every activity query is bounded by user and start, so it runs on the (user_id, start) index
 * and never reads other users' rows.
 */
import type { Kysely } from 'kysely';
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

/** Day comments of the users on local dates in [fromDate, toDate] (inclusive). */
export async function dayCommentsBetween(
  db: Kysely<Database>,
  userIds: string[],
  fromDate: string,
  toDate: string,
): Promise<DayComment[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom('day_comments')
    .select(['user_id', 'date', 'comment'])
    .where('user_id', 'in', userIds)
    .where('date', '>=', fromDate)
    .where('date', '<=', toDate)
    .execute();
  return rows.map((r) => ({ userId: r.user_id, date: r.date, comment: r.comment }));
}

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

/** One user's activities starting in [from, to), with their task, project and category names. */
export async function activityDetails(db: Kysely<Database>, q: ActivityDetailQuery): Promise<ActivityDetail[]> {
  if (q.projectIds && q.projectIds.length === 0) return [];
  // Selected under the names of ActivityDetail: the rows are returned as they come, without
  // a copy per activity (90-day exports hold thousands).
  let query = db
    .selectFrom('activities as a')
    .leftJoin('tasks as t', 't.id', 'a.task_id')
    .leftJoin('projects as p', 'p.id', 'a.effective_project_id')
    .leftJoin('categories as c', 'c.id', 'a.category_id')
    .select([
      'a.id',
      'a.start',
      'a.duration_minutes as durationMinutes',
      'a.headline',
      'a.description',
      'a.task_id as taskId',
      't.title as taskTitle',
      'a.effective_project_id as projectId',
      'p.name as projectName',
      'c.name as categoryName',
      'c.emoji as categoryEmoji',
    ])
    .where('a.user_id', '=', q.userId)
    .where('a.start', '>=', q.from)
    .where('a.start', '<', q.to)
    .orderBy('a.start')
    .orderBy('a.id');
  if (q.projectIds) query = query.where('a.effective_project_id', 'in', q.projectIds);
  return query.execute();
}
