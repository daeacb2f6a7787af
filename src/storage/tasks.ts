/** Writes of tasks (see writes.ts) and the lookups a writer of activities makes of them. */
import { type Insertable, type Selectable, sql } from 'kysely';
import type { TasksTable } from './schema.ts';
import { postgresSearchWords } from './search.ts';
import { textList } from './text-list.ts';
import type { WriteSession } from './writes.ts';

/** A task as written; the search words are the storage's own. */
export type TaskWrite = Omit<Insertable<TasksTable>, 'search_words'>;

export interface TaskOwner {
  userId: string;
  projectId: string | null;
}

/**
 * Which stored tasks a write may replace: any (the importer), none (a task created through the
 * API: its id must be new), or only the writer's own (an update through the API). Another
 * transaction may have written one of the ids since the caller looked (an import takes no id
 * locks): the guard is part of the statement, so such a row is left alone.
 */
type TaskGuard = 'any' | 'none' | 'own';

/**
 * Inserts or replaces tasks by id (distinct ids). Activities without a project of their own
 * follow a task's new project. Returns the ids of stored tasks that now belong to another user
 * (`moved`), and those the guard kept from being written (`kept`).
 */
export async function upsertTasks(
  session: WriteSession,
  rows: TaskWrite[],
  guard: TaskGuard = 'any',
): Promise<{ moved: string[]; kept: string[] }> {
  if (rows.length === 0) return { moved: [], kept: [] };
  const db = session.db;
  const stored = await db
    .selectFrom('tasks')
    .select(['id', 'project_id', 'user_id', 'title'])
    .where(
      'id',
      'in',
      rows.map((t) => t.id),
    )
    .execute();
  const storedById = new Map(stored.map((t) => [t.id, t]));
  const moved: string[] = [];
  const projectChanged: string[] = [];
  for (const t of rows) {
    const was = storedById.get(t.id);
    if (was === undefined) continue;
    if (was.user_id !== t.user_id) moved.push(t.id);
    if (was.title !== t.title) session.renamed('tasks', t.id);
    if (was.project_id !== (t.project_id ?? null)) projectChanged.push(t.id);
  }
  // PostgreSQL: the search words computed here rather than by the database (migration 0004).
  const postgres = session.dialect === 'postgres';
  const written = await db
    .insertInto('tasks')
    .values(
      rows.map((t) => {
        if (!postgres) return t;
        const words = postgresSearchWords(t.user_id, t.created_at, t.title, t.description ?? null);
        return { ...t, search_words: sql<string>`array_to_tsvector(string_to_array(${words}, ' '))` };
      }),
    )
    .onConflict((oc) => {
      if (guard === 'none') return oc.column('id').doNothing();
      const update = oc.column('id').doUpdateSet((eb) => ({
        ...(postgres ? { search_words: eb.ref('excluded.search_words') } : {}),
        user_id: eb.ref('excluded.user_id'),
        date: eb.ref('excluded.date'),
        title: eb.ref('excluded.title'),
        description: eb.ref('excluded.description'),
        project_id: eb.ref('excluded.project_id'),
        visible: eb.ref('excluded.visible'),
        created_at: eb.ref('excluded.created_at'),
        created_at_auto: eb.ref('excluded.created_at_auto'),
      }));
      return guard === 'own' ? update.whereRef('tasks.user_id', '=', 'excluded.user_id') : update;
    })
    .returning('id')
    .execute();
  const writtenIds = new Set(written.map((t) => t.id));
  const kept = rows.filter((t) => !writtenIds.has(t.id)).map((t) => t.id);
  if (kept.length > 0) return { moved: [], kept };
  session.daysChanged(rows.map((t) => ({ user_id: t.user_id, local_date: t.date })));
  // A task whose createdAt follows its first activity may have one already.
  session.tasksTouched(rows.map((t) => t.id));
  if (projectChanged.length > 0) {
    // Activities without their own project follow their task's project: their days' project
    // totals (rollups, summaries) change.
    const days = await db
      .selectFrom('activities')
      .select(['user_id', 'local_date'])
      .distinct()
      .where('task_id', 'in', textList(db, projectChanged))
      .where('project_id', 'is', null)
      .execute();
    session.activitiesChangedOn(days);
    await db
      .updateTable('activities')
      .set((eb) => ({
        effective_project_id: eb
          .selectFrom('tasks')
          .select('tasks.project_id')
          .whereRef('tasks.id', '=', 'activities.task_id'),
      }))
      .where('task_id', 'in', textList(db, projectChanged))
      .where('project_id', 'is', null)
      .execute();
  }
  return { moved, kept: [] };
}

/** The user's tasks among `ids` are deleted with their activities; returns the ids deleted. */
export async function deleteTasks(session: WriteSession, userId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const db = session.db;
  // The delete triggers keep the rollups and the search index.
  await session.endDeferredUpkeep();
  const activities = await db
    .deleteFrom('activities')
    .where('task_id', 'in', (eb) =>
      eb
        .selectFrom('tasks')
        .select('tasks.id')
        .where('tasks.user_id', '=', userId)
        .where('tasks.id', 'in', textList(db, ids)),
    )
    .returning(['user_id', 'local_date'])
    .execute();
  const tasks = await db
    .deleteFrom('tasks')
    .where('user_id', '=', userId)
    .where('id', 'in', textList(db, ids))
    .returning(['id', 'user_id', 'date'])
    .execute();
  session.daysChanged(activities);
  session.daysChanged(tasks.map((t) => ({ user_id: t.user_id, local_date: t.date })));
  return tasks.map((t) => t.id);
}

/** Who a stored task belongs to and its project. */
export async function findTaskOwner(session: WriteSession, id: string): Promise<TaskOwner | undefined> {
  const row = await session.db
    .selectFrom('tasks')
    .select(['user_id', 'project_id'])
    .where('id', '=', id)
    .executeTakeFirst();
  return row && { userId: row.user_id, projectId: row.project_id };
}

/** The first activity (by id) of one of these tasks whose user is not the task's. */
export async function activityOfAnotherUser(
  session: WriteSession,
  taskIds: Iterable<string>,
): Promise<{ id: string; userId: string; taskId: string } | undefined> {
  const db = session.db;
  const row = await db
    .selectFrom('activities as a')
    .innerJoin('tasks as t', 't.id', 'a.task_id')
    .select(['a.id', 'a.user_id', 'a.task_id'])
    .where('a.task_id', 'in', textList(db, taskIds))
    .whereRef('a.user_id', '<>', 't.user_id')
    .orderBy('a.id')
    .limit(1)
    .executeTakeFirst();
  return row && { id: row.id, userId: row.user_id, taskId: row.task_id! };
}

/** The stored tasks among `ids` (at most a batch): owner and project. */
export async function tasksByIds(
  session: WriteSession,
  ids: readonly string[],
): Promise<{ id: string; userId: string; projectId: string | null }[]> {
  if (ids.length === 0) return [];
  const rows = await session.db
    .selectFrom('tasks')
    .select(['id', 'user_id', 'project_id'])
    .where('id', 'in', textList(session.db, ids))
    .execute();
  return rows.map((r) => ({ id: r.id, userId: r.user_id, projectId: r.project_id }));
}

/** A stored task as read back (its search words are the storage's own). */
export type TaskRead = Omit<Selectable<TasksTable>, 'search_words'>;

/** The task with `id`, whoever's it is, and the minutes of its activities. */
export async function findTask(
  db: WriteSession['db'],
  id: string,
): Promise<(TaskRead & { minutes: number }) | undefined> {
  const row = await db
    .selectFrom('tasks as t')
    .select([
      't.id',
      't.user_id',
      't.date',
      't.title',
      't.description',
      't.project_id',
      't.visible',
      't.created_at',
      't.created_at_auto',
    ])
    .select((eb) =>
      eb
        .selectFrom('activities as a')
        .select((a) => a.fn.coalesce(a.fn.sum<number>('a.duration_minutes'), a.lit(0)).as('m'))
        .whereRef('a.task_id', '=', 't.id')
        .as('minutes'),
    )
    .where('t.id', '=', id)
    .executeTakeFirst();
  return row && { ...row, minutes: Number(row.minutes ?? 0) };
}
