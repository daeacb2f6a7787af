/**
 * POST /tasks, POST /tasks/:id and DELETE /tasks/:id (docs/api.md, "Recording work"): the rules
 * a schema cannot state, then one write session (storage/writes.ts), as the importer writes, so
 * rollups, search, `usedAt` and the summaries' changed days follow at once.
 */
import { randomBytes } from 'node:crypto';
import { ApiError, badRequest, notFound } from '../../errors.ts';
import { addDays, firstInstantOfLocalDay, localDateOf, localNoon, localTimeOn, toIso } from '../../lib/time.ts';
import type { UserRow } from '../../storage/accounts.ts';
import { type ActivityWrite, upsertActivities } from '../../storage/activities.ts';
import type { Storage } from '../../storage/database.ts';
import { type ProjectForLogging, projectsForLoggingNamed } from '../../storage/projects.ts';
import { deleteTasks, findTask, type TaskRead, type TaskWrite, upsertTasks } from '../../storage/tasks.ts';
import { cleanMinutes } from '../reports/tally.ts';
import { lockIds, type WriteSession, writeRecords } from '../../storage/writes.ts';
import type { CreateTaskBody, Task, UpdateTaskBody } from '../../schemas/tasks.ts';
import { canSeeProject, type Viewer } from '../projects/access.ts';
import { checkLoggable, checkNotFuture, checkTitle, loggingRefusal, quoted, readInstant } from './rules.ts';

interface Caller {
  user: UserRow;
  viewer: Viewer;
}

/** The longest activity a task's `minutes` are recorded as. */
const BLOCK_MINUTES = 60;
/** Where a task's `minutes` begin when no `start` is given: this local time on its date. */
const DEFAULT_START = '09:00';

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url')}`;

/**
 * The project named by `value` (an id, else an exact name, trimmed) that the caller may log
 * time to. Of several projects of that name, one the caller may log time to is taken, the
 * oldest first; the rules are told of the first it can see when none qualifies.
 */
async function projectToLog(session: WriteSession, value: string, viewer: Viewer): Promise<ProjectForLogging> {
  const found = await projectsForLoggingNamed(session, value, value.trim());
  const visible = found.filter((p) => canSeeProject(p, viewer));
  const byId = visible.find((p) => p.id === value);
  const project = byId ?? visible.find((p) => loggingRefusal(p, viewer) === null) ?? visible[0];
  checkLoggable(project, viewer, () => badRequest(`Project not found: ${quoted(value)}`));
  return project;
}

/** The time of `minutes` as activities of at most 60 minutes, back to back from `start`. */
function taskActivities(task: TaskWrite, start: number, minutes: number, timezone: string): ActivityWrite[] {
  const rows: ActivityWrite[] = [];
  for (let done = 0; done < minutes; done += BLOCK_MINUTES) {
    const at = start + done * 60_000;
    rows.push({
      id: newId('a'),
      user_id: task.user_id,
      start: at,
      duration_minutes: Math.min(BLOCK_MINUTES, minutes - done),
      headline: task.title,
      description: null,
      task_id: task.id,
      project_id: null,
      effective_project_id: task.project_id ?? null,
      category_id: null,
      local_date: localDateOf(at, timezone),
    });
  }
  return rows;
}

/**
 * The span of `minutes` from `start` (default 09:00 local on `date`) lies within `date`'s local
 * day and ends no more than 5 minutes from now: its start, else a 400 naming the field at fault.
 */
function spanStart(date: string, start: number | undefined, minutes: number, timezone: string, now: number): number {
  const from = start ?? localTimeOn(date, DEFAULT_START, timezone);
  const dayEnd = firstInstantOfLocalDay(addDays(date, 1), timezone);
  if (localDateOf(from, timezone) !== date) throw badRequest(`start must lie within the task's local date ${date}`);
  if (from + minutes * 60_000 > dayEnd)
    throw badRequest(`minutes must end by the end of the task's local date ${date} (from ${toIso(from)})`);
  if (start !== undefined) checkNotFuture(from, now, 'start', 'the time');
  checkNotFuture(from + minutes * 60_000, now, 'minutes', 'the time');
  return from;
}

function present(task: TaskRead & { minutes: number }): Task {
  return {
    id: task.id,
    title: task.title,
    description: task.description,
    date: task.date,
    projectId: task.project_id,
    visible: Boolean(task.visible),
    // A sum of fractional minutes: without its binary noise, as reports show it.
    minutes: cleanMinutes(task.minutes),
    createdAt: toIso(task.created_at)!,
  };
}

/** The task as stored now, read after its write committed. */
async function stored(storage: Storage, id: string): Promise<Task> {
  const task = await findTask(storage.db, id);
  if (!task) throw notFound('Task not found');
  return present(task);
}

export async function createTask(
  storage: Storage,
  caller: Caller,
  body: CreateTaskBody,
  clock: () => number,
): Promise<Task> {
  const now = clock();
  const timezone = caller.user.timezone;
  checkTitle(body.title, 'title');
  const start = body.start === undefined ? undefined : readInstant(body.start, 'start');
  const date = body.date ?? localDateOf(start ?? now, timezone);
  if (body.minutes === undefined && start !== undefined && localDateOf(start, timezone) !== date)
    throw badRequest(`start must lie within the task's local date ${date}`);
  const from = body.minutes === undefined ? undefined : spanStart(date, start, body.minutes, timezone, now);
  const id = body.id ?? newId('k');

  await writeRecords(storage, { clock }, async (session) => {
    await lockIds(session, 'task', [id]);
    if (await findTask(session.db, id)) throw new ApiError(409, `Task id already in use: ${quoted(id)}`);
    const project =
      body.project === undefined || body.project === null
        ? null
        : await projectToLog(session, body.project, caller.viewer);
    const task: TaskWrite = {
      id,
      user_id: caller.user.id,
      date,
      title: body.title,
      description: body.description ?? null,
      project_id: project?.id ?? null,
      visible: (body.visible ?? true) ? 1 : 0,
      // As for an imported task without createdAt: noon of its date, then its first activity's
      // start. With minutes, that start is known: stored at once, the task is not updated (and
      // its search entry written again) when its activities follow.
      created_at: from ?? localNoon(date, timezone),
      created_at_auto: 1,
    };
    // Another transaction may have written the id since it was looked up (an import takes no id locks).
    if ((await upsertTasks(session, [task], 'none')).kept.length > 0)
      throw new ApiError(409, `Task id already in use: ${quoted(id)}`);
    if (from !== undefined && body.minutes !== undefined)
      await upsertActivities(session, taskActivities(task, from, body.minutes, timezone));
  });
  return stored(storage, id);
}

export async function updateTask(
  storage: Storage,
  caller: Caller,
  id: string,
  body: UpdateTaskBody,
  clock: () => number,
): Promise<Task> {
  if (body.title !== undefined) checkTitle(body.title, 'title');
  await writeRecords(storage, { clock }, async (session) => {
    await lockIds(session, 'task', [id]);
    const task = await findTask(session.db, id);
    if (task?.user_id !== caller.user.id) throw notFound('Task not found');
    let projectId = task.project_id;
    // The rules are those of logging time: asked of a project the task moves to, not of the one it keeps.
    if (body.project === null) projectId = null;
    else if (body.project !== undefined && body.project !== task.project_id)
      projectId = (await projectToLog(session, body.project, caller.viewer)).id;
    const { kept } = await upsertTasks(
      session,
      [
        {
          id,
          user_id: task.user_id,
          date: task.date,
          title: body.title ?? task.title,
          description: body.description === undefined ? task.description : body.description,
          project_id: projectId,
          visible: body.visible === undefined ? task.visible : body.visible ? 1 : 0,
          created_at: task.created_at,
          created_at_auto: task.created_at_auto,
        },
      ],
      'own',
    );
    // Given to another user by an import since it was looked up.
    if (kept.length > 0) throw notFound('Task not found');
  });
  return stored(storage, id);
}

export async function deleteTask(storage: Storage, userId: string, id: string, clock: () => number): Promise<void> {
  const deleted = await writeRecords(storage, { clock }, async (session) => {
    await lockIds(session, 'task', [id]);
    return deleteTasks(session, userId, [id]);
  });
  if (deleted.length === 0) throw notFound('Task not found');
}
