/**
 * The one aggregation of tracked time shared by reports and summaries: minutes grouped by
 * user, local day, project, category and task, for activities whose start lies in [from, to).
 * Callers shape these groups into day/week/task rows or period summaries.
 */
import { type Kysely, PostgresAdapter, type SelectQueryBuilder, sql } from 'kysely';
import { addDays, firstInstantOfLocalDay, localDateOf } from '../lib/time.ts';
import type { Database } from './schema.ts';

export interface MinuteGroup {
  userId: string;
  /** The activity's local day in its user's timezone. */
  date: string;
  projectId: string | null;
  categoryId: string | null;
  taskId: string | null;
  minutes: number;
}

export interface AggregateQuery {
  userIds: string[];
  /** Unix ms, inclusive. */
  from: number;
  /** Unix ms, exclusive. */
  to: number;
  /** Only activities of these projects (own project, else the task's). */
  projectIds?: string[];
}

/**
 * Whole local days come from day_rollups; only the edges of the range that cut a user's local
 * day are summed from activities. The groups are the same as a GROUP BY over the activities
 * in [from, to): an activity's local_date is the day of its start in its user's timezone, so
 * the activities of a whole day are exactly those starting between its two midnights.
 */
export async function sumMinutes(db: Kysely<Database>, q: AggregateQuery): Promise<MinuteGroup[]> {
  if (q.userIds.length === 0 || (q.projectIds && q.projectIds.length === 0)) return [];
  const users = await db.selectFrom('users').select(['id', 'timezone']).where('id', 'in', q.userIds).execute();
  // Users of one timezone share their whole days and edges: one set of queries per zone.
  const byZone = new Map<string, string[]>();
  for (const user of users) {
    const ids = byZone.get(user.timezone);
    if (ids) ids.push(user.id);
    else byZone.set(user.timezone, [user.id]);
  }
  const parts: SelectQueryBuilder<Database, 'activities' | 'day_rollups', MinuteGroup>[] = [];
  for (const [timezone, userIds] of byZone) {
    const days = wholeDays(q.from, q.to, timezone);
    if (!days) {
      parts.push(activityGroups(db, userIds, q.from, q.to, q.projectIds));
      continue;
    }
    parts.push(rollupGroups(db, userIds, days.first, days.last, q.projectIds));
    // Local dates only move forward, so the days first..last hold exactly the activities
    // starting in [start, end), and from <= start <= end <= to.
    if (q.from < days.start) parts.push(activityGroups(db, userIds, q.from, days.start, q.projectIds));
    if (days.end < q.to) parts.push(activityGroups(db, userIds, days.end, q.to, q.projectIds));
  }
  if (parts.length === 0) return [];
  // One statement, so the rollups and the edge activities are read from the same snapshot.
  // Columns are named as in MinuteGroup and sums of doubles arrive as numbers on both
  // databases: the rows are the groups, without a copy per group.
  let query = parts[0]!;
  for (const part of parts.slice(1)) query = query.unionAll(part);
  return query.execute();
}

/**
 * The local days of `timezone` lying wholly inside [from, to): dates `first`..`last` and the
 * instants `start` (where `first` begins) and `end` (where the day after `last` begins). Null
 * when the range holds no whole day.
 */
function wholeDays(from: number, to: number, timezone: string): { first: string; last: string; start: number; end: number } | null {
  const fromDate = localDateOf(from, timezone);
  const first = firstInstantOfLocalDay(fromDate, timezone) === from ? fromDate : addDays(fromDate, 1);
  const toDate = localDateOf(to, timezone);
  const last = addDays(toDate, -1);
  if (first > last) return null;
  return { first, last, start: firstInstantOfLocalDay(first, timezone), end: firstInstantOfLocalDay(toDate, timezone) };
}

function rollupGroups(db: Kysely<Database>, userIds: string[], first: string, last: string, projectIds: string[] | undefined) {
  let query = db
    .selectFrom('day_rollups')
    .select([
      'user_id as userId',
      'local_date as date',
      sql<string | null>`nullif(project_key, '')`.as('projectId'),
      sql<string | null>`nullif(category_key, '')`.as('categoryId'),
      sql<string | null>`nullif(task_key, '')`.as('taskId'),
      'minutes',
    ])
    .where('user_id', 'in', userIds)
    .where('local_date', '>=', first)
    .where('local_date', '<=', last);
  if (projectIds) query = query.where('project_key', 'in', projectIds);
  return query as unknown as SelectQueryBuilder<Database, 'activities' | 'day_rollups', MinuteGroup>;
}

function activityGroups(db: Kysely<Database>, userIds: string[], from: number, to: number, projectIds: string[] | undefined) {
  let query = db
    .selectFrom('activities')
    .select((eb) => [
      'user_id as userId',
      'local_date as date',
      'effective_project_id as projectId',
      'category_id as categoryId',
      'task_id as taskId',
      eb.fn.sum<number>('duration_minutes').as('minutes'),
    ])
    .where('user_id', 'in', userIds)
    .where('start', '>=', from)
    .where('start', '<', to)
    .groupBy(['user_id', 'local_date', 'effective_project_id', 'category_id', 'task_id']);
  if (projectIds) query = query.where('effective_project_id', 'in', projectIds);
  return query as unknown as SelectQueryBuilder<Database, 'activities' | 'day_rollups', MinuteGroup>;
}

export interface NamedProject {
  id: string;
  name: string;
  teamId: string | null;
  createdBy: string;
  private: boolean;
  confidential: boolean;
}

export interface NamedTask {
  id: string;
  userId: string;
  title: string;
  date: string;
  projectId: string | null;
  visible: boolean;
}

export interface NamedCategory {
  id: string;
  name: string;
  emoji: string | null;
}

/** Names and flags of the projects, categories and tasks that groups refer to. */
export async function lookupNames(
  db: Kysely<Database>,
  groups: { projectId: string | null; categoryId: string | null; taskId: string | null }[],
): Promise<{ projects: Map<string, NamedProject>; categories: Map<string, NamedCategory>; tasks: Map<string, NamedTask> }> {
  const projectIds = new Set<string>();
  const categoryIds = new Set<string>();
  const taskIds = new Set<string>();
  for (const g of groups) {
    if (g.projectId) projectIds.add(g.projectId);
    if (g.categoryId) categoryIds.add(g.categoryId);
    if (g.taskId) taskIds.add(g.taskId);
  }
  const projects = new Map<string, NamedProject>();
  const categories = new Map<string, NamedCategory>();
  const tasks = new Map<string, NamedTask>();
  if (projectIds.size > 0) {
    for (const p of await db
      .selectFrom('projects')
      .$call(withIds(db, 'projects', projectIds))
      .select(['projects.id', 'projects.name', 'projects.team_id', 'projects.created_by', 'projects.private', 'projects.confidential'])
      .execute()) {
      projects.set(p.id, {
        id: p.id,
        name: p.name,
        teamId: p.team_id,
        createdBy: p.created_by,
        private: Boolean(p.private),
        confidential: Boolean(p.confidential),
      });
    }
  }
  if (categoryIds.size > 0) {
    for (const c of await db
      .selectFrom('categories')
      .$call(withIds(db, 'categories', categoryIds))
      .select(['categories.id', 'categories.name', 'categories.emoji'])
      .execute()) {
      categories.set(c.id, c);
    }
  }
  if (taskIds.size > 0) {
    for (const t of await db
      .selectFrom('tasks')
      .$call(withIds(db, 'tasks', taskIds))
      .select(['tasks.id', 'tasks.user_id', 'tasks.title', 'tasks.date', 'tasks.project_id', 'tasks.visible'])
      .execute()) {
      tasks.set(t.id, {
        id: t.id,
        userId: t.user_id,
        title: t.title,
        date: t.date,
        projectId: t.project_id,
        visible: Boolean(t.visible),
      });
    }
  }
  return { projects, categories, tasks };
}

/**
 * Only the rows of `table` whose id is one of `ids`, the list joined to the table as one
 * parameter (PostgreSQL: an array, SQLite: a JSON array), so each id is looked up by the primary
 * key as it is read. A year of a busy user, or 90 days of a team, names thousands of tasks: one
 * placeholder per id costs more to build, send and plan than the lookups, and PostgreSQL's
 * `id = any($1)` first sorts the whole list under the column's collation (33 ms for 2,500 tasks
 * of a team, against 5 ms joined).
 */
function withIds<QB extends SelectQueryBuilder<Database, 'projects' | 'categories' | 'tasks', object>>(
  db: Kysely<Database>,
  table: 'projects' | 'categories' | 'tasks',
  ids: Set<string>,
): (query: QB) => QB {
  const list = [...ids];
  const wanted =
    db.getExecutor().adapter instanceof PostgresAdapter
      ? sql<{ value: string }>`unnest(${list}::text[]) as wanted(value)`
      : sql<{ value: string }>`json_each(${JSON.stringify(list)}) as wanted`;
  return (query) =>
    query.innerJoin(wanted as never, (join) =>
      join.onRef(sql.ref('wanted.value') as never, '=', sql.ref(`${table}.id`) as never),
    ) as unknown as QB;
}
