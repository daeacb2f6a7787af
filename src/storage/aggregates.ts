/**
 * The one aggregation of tracked time shared by reports and summaries: minutes grouped by
 * user, local day, project, category and task, for activities whose start lies in [from, to).
 * Callers shape these groups into day/week/task rows or period summaries.
 */
import { type Kysely, PostgresAdapter, type SelectQueryBuilder, sql } from 'kysely';
import { addDays, firstInstantOfLocalDay, localDateOf } from '../lib/time.ts';
import type { Database } from './schema.ts';
import { fixedQuery } from './fixed-query.ts';
import { jsonList, jsonTextRows } from './text-list.ts';

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
  /** The users' timezones, when the caller has them at hand; otherwise they are looked up. */
  timezones?: ReadonlyMap<string, string>;
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
 *
 * One statement whatever the number of users and timezones: each user's whole days and edges
 * are rows of a JSON parameter joined to the tables, so its text never changes (the database
 * keeps it prepared) and the rollups and the edge activities are read from one snapshot. Per
 * zone unions of `in` lists made a 25-member team report a 27-part statement that PostgreSQL
 * planned anew every time. On PostgreSQL each user's ranges are a lateral subquery kept apart
 * (`offset 0`), so they are read through the indexes: joined plainly, the planner guesses 100
 * rows for the JSON, hashes it and reads whole tables (376 ms instead of 14 for that team).
 */
export async function sumMinutes(db: Kysely<Database>, q: AggregateQuery): Promise<MinuteGroup[]> {
  if (q.userIds.length === 0 || (q.projectIds && q.projectIds.length === 0)) return [];
  const timezones = q.timezones ?? (await timezonesOf(db, q.userIds));
  const wholeDayRanges: [string, string, string][] = [];
  const edgeRanges: [string, number, number][] = [];
  for (const userId of new Set(q.userIds)) {
    const timezone = timezones.get(userId);
    if (timezone === undefined) continue;
    const days = wholeDays(q.from, q.to, timezone);
    if (!days) {
      edgeRanges.push([userId, q.from, q.to]);
      continue;
    }
    wholeDayRanges.push([userId, days.first, days.last]);
    // Local dates only move forward, so the days first..last hold exactly the activities
    // starting in [start, end), and from <= start <= end <= to.
    if (q.from < days.start) edgeRanges.push([userId, q.from, days.start]);
    if (days.end < q.to) edgeRanges.push([userId, days.end, q.to]);
  }
  if (wholeDayRanges.length === 0 && edgeRanges.length === 0) return [];
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const projects = q.projectIds ? JSON.stringify(q.projectIds) : null;
  // Columns are named as in MinuteGroup and sums of doubles arrive as numbers on both
  // databases: the rows are the groups, without a copy per group.
  const query = postgres
    ? sql<MinuteGroup>`
      select r.user_id as "userId", r.local_date as "date", nullif(r.project_key, '') as "projectId",
        nullif(r.category_key, '') as "categoryId", nullif(r.task_key, '') as "taskId", r.minutes
      from json_to_recordset(${JSON.stringify(wholeDayRanges.map(([u, first, last]) => ({ u, first, last })))}::json)
        as w(u text, first text, last text)
      cross join lateral (
        select user_id, local_date, project_key, category_key, task_key, minutes from day_rollups
        where user_id = w.u and local_date between w.first and w.last offset 0
      ) r
      where ${projects}::json is null or r.project_key in (select json_array_elements_text(${projects}::json))
      union all
      select a.user_id, a.local_date, a.effective_project_id, a.category_id, a.task_id, sum(a.duration_minutes)
      from json_to_recordset(${JSON.stringify(edgeRanges.map(([u, from, to]) => ({ u, from, to })))}::json)
        as e(u text, "from" bigint, "to" bigint)
      cross join lateral (
        select user_id, local_date, effective_project_id, category_id, task_id, duration_minutes from activities
        where user_id = e.u and start >= e."from" and start < e."to" offset 0
      ) a
      where ${projects}::json is null or a.effective_project_id in (select json_array_elements_text(${projects}::json))
      group by a.user_id, a.local_date, a.effective_project_id, a.category_id, a.task_id`
    : sql<MinuteGroup>`
      select r.user_id as userId, r.local_date as date, nullif(r.project_key, '') as projectId,
        nullif(r.category_key, '') as categoryId, nullif(r.task_key, '') as taskId, r.minutes
      from json_each(${JSON.stringify(wholeDayRanges)}) w
      cross join day_rollups r
      where r.user_id = w.value ->> 0 and r.local_date >= w.value ->> 1 and r.local_date <= w.value ->> 2
        and (${projects} is null or r.project_key in (select value from json_each(${projects})))
      union all
      select a.user_id, a.local_date, a.effective_project_id, a.category_id, a.task_id, sum(a.duration_minutes)
      from json_each(${JSON.stringify(edgeRanges)}) e
      cross join activities a
      where a.user_id = e.value ->> 0 and a.start >= e.value ->> 1 and a.start < e.value ->> 2
        and (${projects} is null or a.effective_project_id in (select value from json_each(${projects})))
      group by a.user_id, a.local_date, a.effective_project_id, a.category_id, a.task_id`;
  return (await query.execute(db)).rows;
}

async function timezonesOf(db: Kysely<Database>, userIds: string[]): Promise<Map<string, string>> {
  const users = await db.selectFrom('users').select(['id', 'timezone']).where('id', 'in', userIds).execute();
  return new Map(users.map((u) => [u.id, u.timezone]));
}

/**
 * The local days of `timezone` lying wholly inside [from, to): dates `first`..`last` and the
 * instants `start` (where `first` begins) and `end` (where the day after `last` begins). Null
 * when the range holds no whole day.
 */
function wholeDays(
  from: number,
  to: number,
  timezone: string,
): { first: string; last: string; start: number; end: number } | null {
  const fromDate = localDateOf(from, timezone);
  const first = firstInstantOfLocalDay(fromDate, timezone) === from ? fromDate : addDays(fromDate, 1);
  const toDate = localDateOf(to, timezone);
  const last = addDays(toDate, -1);
  if (first > last) return null;
  return { first, last, start: firstInstantOfLocalDay(first, timezone), end: firstInstantOfLocalDay(toDate, timezone) };
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
  /** 1 or 0, as stored. */
  visible: number;
}

export interface NamedCategory {
  id: string;
  name: string;
  emoji: string | null;
}

/** What a group names; `userId` and `date` (whose time, which local day) when it has them. */
export interface NameRefs {
  projectId: string | null;
  categoryId: string | null;
  taskId: string | null;
  userId?: string;
  date?: string;
}

/** Names and flags of the projects, categories and tasks that groups refer to, and of the tasks' projects. */
export async function lookupNames(
  db: Kysely<Database>,
  groups: NameRefs[],
): Promise<{
  projects: Map<string, NamedProject>;
  categories: Map<string, NamedCategory>;
  tasks: Map<string, NamedTask>;
}> {
  const projectIds = new Set<string>();
  const categoryIds = new Set<string>();
  // The users and the span of local days of the groups with a task (see tasksDatedIn).
  const taskUsers = new Set<string>();
  let firstDate = '';
  let lastDate = '';
  let withTask = 0;
  for (const g of groups) {
    if (g.projectId) projectIds.add(g.projectId);
    if (g.categoryId) categoryIds.add(g.categoryId);
    if (g.taskId) {
      withTask++;
      if (g.userId !== undefined && g.date !== undefined) {
        taskUsers.add(g.userId);
        if (firstDate === '' || g.date < firstDate) firstDate = g.date;
        if (g.date > lastDate) lastDate = g.date;
      }
    }
  }
  // The groups' projects and categories are read while the tasks are. Should a read of the
  // tasks fail first (a connection lost), this one, failing too, is not an unhandled rejection
  // (which would end the process): it is still awaited below when the tasks were read.
  const named = projectsAndCategories(db, projectIds, categoryIds);
  named.catch(() => {});
  const tasks = new Map<string, NamedTask>();
  /** Projects of the tasks the groups name. */
  const taskProjects = new Set<string>();
  if (withTask > 0) {
    const byRange = taskUsers.size > 0 ? await tasksDatedIn(db, [...taskUsers], firstDate, lastDate) : [];
    for (const t of byRange) tasks.set(t.id, t);
    // Tasks dated elsewhere, or another user's, by id; tasks of the range that no group names
    // stay in the map unused.
    const missing = new Set<string>();
    let lastTask: NamedTask | undefined;
    for (const g of groups) {
      if (!g.taskId || g.taskId === lastTask?.id) continue;
      lastTask = tasks.get(g.taskId);
      if (lastTask) {
        if (lastTask.projectId) taskProjects.add(lastTask.projectId);
      } else missing.add(g.taskId);
    }
    if (missing.size > 0) {
      for (const t of await TASKS_BY_ID.execute(db, '', [jsonList(missing)])) {
        tasks.set(t.id, t);
        if (t.projectId) taskProjects.add(t.projectId);
      }
    }
  }
  const { projects, categories } = await named;
  // A task's own project is shown (or masked) with the task: read the few not read already.
  for (const id of taskProjects) if (projects.has(id)) taskProjects.delete(id);
  if (taskProjects.size > 0) {
    for (const [id, project] of (await projectsAndCategories(db, taskProjects, new Set())).projects)
      projects.set(id, project);
  }
  return { projects, categories, tasks };
}

/**
 * Projects and categories by id, each list one JSON parameter, in one statement (one round
 * trip): the rows of both tables as one shape, told apart by `kind`.
 */
const NAMES = fixedQuery((db, [projectIds, categoryIds]) =>
  db
    .selectFrom('projects')
    .$call(withIds(db, 'projects', projectIds))
    .select((eb) => [
      sql.lit('p').as('kind'),
      'projects.id',
      'projects.name',
      'projects.team_id',
      'projects.created_by',
      'projects.private',
      'projects.confidential',
      eb.cast<string | null>(sql.lit(null), 'text').as('emoji'),
    ])
    .unionAll(
      db
        .selectFrom('categories')
        .$call(withIds(db, 'categories', categoryIds))
        .select((eb) => [
          sql.lit('c').as('kind'),
          'categories.id',
          'categories.name',
          eb.cast<string | null>(sql.lit(null), 'text').as('team_id'),
          eb.cast<string>(sql.lit(null), 'text').as('created_by'),
          eb.cast<number>(sql.lit(null), 'integer').as('private'),
          eb.cast<number>(sql.lit(null), 'integer').as('confidential'),
          'categories.emoji',
        ]),
    ),
);

async function projectsAndCategories(
  db: Kysely<Database>,
  projectIds: Set<string>,
  categoryIds: Set<string>,
): Promise<{ projects: Map<string, NamedProject>; categories: Map<string, NamedCategory> }> {
  const projects = new Map<string, NamedProject>();
  const categories = new Map<string, NamedCategory>();
  if (projectIds.size === 0 && categoryIds.size === 0) return { projects, categories };
  const rows = await NAMES.execute(db, '', [jsonList(projectIds), jsonList(categoryIds)]);
  for (const r of rows) {
    if (r.kind === 'c') categories.set(r.id, { id: r.id, name: r.name, emoji: r.emoji });
    else {
      projects.set(r.id, {
        id: r.id,
        name: r.name,
        teamId: r.team_id,
        createdBy: r.created_by,
        private: Boolean(r.private),
        confidential: Boolean(r.confidential),
      });
    }
  }
  return { projects, categories };
}

/** The columns of a NamedTask, under its names: rows are used as they come. */
const TASK_COLUMNS = [
  'tasks.id',
  'tasks.user_id as userId',
  'tasks.title',
  'tasks.date',
  'tasks.project_id as projectId',
  'tasks.visible',
] as const;

/**
 * The users' tasks dated firstDate..lastDate, read as ranges of the (user_id, date) index. A
 * task is nearly always worked on the day it is dated, so these are the tasks a report of those
 * days names, save a few looked up by id afterwards. A team's 90 days name ~9,000 tasks: read by
 * range they cost about half of what one primary-key probe each costs on SQLite, and a tenth on
 * PostgreSQL, where a list of thousands of ids is itself slow to pass and unpack.
 */
function tasksDatedIn(db: Kysely<Database>, userIds: string[], firstDate: string, lastDate: string) {
  return TASKS_DATED.execute(db, String(userIds.length), [...userIds, firstDate, lastDate]);
}

/** Its shape is the number of users (values: the users, then the first and last date). */
const TASKS_DATED = fixedQuery((db, values, shape) => {
  const users = Number(shape);
  return db
    .selectFrom('tasks')
    .select(TASK_COLUMNS)
    .where('tasks.user_id', 'in', values.slice(0, users) as string[])
    .where('tasks.date', '>=', values[users] as string)
    .where('tasks.date', '<=', values[users + 1] as string);
});

/** Tasks by id, the ids one JSON list (jsonList). */
const TASKS_BY_ID = fixedQuery((db, [ids]) =>
  db
    .selectFrom('tasks')
    .$call(withIds(db, 'tasks', ids))
    .select(TASK_COLUMNS),
);

/**
 * Only the rows of `table` whose id is one of `ids` (a jsonList), the list joined to the table
 * as one JSON parameter, so each id is looked up by the primary key as it is read. One placeholder per id
 * costs more to build, send and plan than the lookups; on PostgreSQL `id = any($1)` first sorts
 * the whole list under the column's collation, and a `text[]` parameter of thousands of ids is
 * slower to unpack than the same ids as JSON (45 against 10 ms for 9,000).
 */
function withIds<QB extends SelectQueryBuilder<Database, 'projects' | 'categories' | 'tasks', object>>(
  db: Kysely<Database>,
  table: 'projects' | 'categories' | 'tasks',
  ids: unknown,
): (query: QB) => QB {
  const wanted = jsonTextRows(db, ids, 'wanted');
  return (query) =>
    query.innerJoin(wanted as never, (join) =>
      join.onRef(sql.ref('wanted.value') as never, '=', sql.ref(`${table}.id`) as never),
    ) as unknown as QB;
}
