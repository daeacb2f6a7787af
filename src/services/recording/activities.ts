/**
 * POST /activities and DELETE /activities/:id (docs/api.md, "Recording work"): the rules a
 * schema cannot state, then one write session (storage/writes.ts), the path the importer takes,
 * so rollups, search, `usedAt` and the summaries' changed days follow at once.
 */
import { randomBytes } from 'node:crypto';
import { ApiError, badRequest, notFound } from '../../errors.ts';
import { localDateOf } from '../../lib/time.ts';
import type { UserRow } from '../../storage/accounts.ts';
import { type ActivityWrite, activityOwners, deleteActivities, upsertOwnActivities } from '../../storage/activities.ts';
import type { Storage } from '../../storage/database.ts';
import { categoriesNamed, projectsForLogging } from '../../storage/projects.ts';
import { tasksByIds } from '../../storage/tasks.ts';
import { lockIds, writeRecords } from '../../storage/writes.ts';
import type { Payload } from '../../schemas/common.ts';
import type { RecordActivitiesBody, RecordActivitiesResponse } from '../../schemas/activities.ts';
import type { Viewer } from '../projects/access.ts';
import { checkLoggable, checkNotFuture, checkTitle, quoted, readInstant } from './rules.ts';

/**
 * An activity as the caller sent it, read and checked against its own rules (readActivities):
 * its start as Unix ms and its local day in the caller's timezone.
 */
export interface ActivityItem {
  id: string;
  given: boolean;
  start: number;
  localDate: string;
  durationMinutes: number;
  headline: string;
  description: string | null;
  taskId: string | null;
  projectId: string | null;
  category: string | null;
}

function newActivityId(): string {
  return `a_${randomBytes(12).toString('base64url')}`;
}

/**
 * Each item's own rules beyond the schema, in request order: a 400 naming the item and field.
 * They need no database, so the route checks them before the write is queued
 * (services/recording/recorder.ts): a batch refused for its own content is answered at once and
 * never waits behind the writes ahead of it, and the write thread is spared the work.
 */
export function readActivities(body: RecordActivitiesBody, timezone: string, now: number): ActivityItem[] {
  const seen = new Map<string, number>();
  return body.activities.map((a, i) => {
    const field = (name: string) => `activities[${i}].${name}`;
    checkTitle(a.headline, field('headline'));
    const start = readInstant(a.start, field('start'));
    const durationMinutes = a.durationMinutes ?? 5;
    checkNotFuture(start + durationMinutes * 60_000, now, field('start'));
    if (a.id !== undefined) {
      const earlier = seen.get(a.id);
      if (earlier !== undefined) throw badRequest(`${field('id')} repeats activities[${earlier}].id`);
      seen.set(a.id, i);
    }
    return {
      id: a.id ?? newActivityId(),
      given: a.id !== undefined,
      start,
      localDate: localDateOf(start, timezone),
      durationMinutes,
      headline: a.headline,
      description: a.description ?? null,
      taskId: a.taskId ?? null,
      projectId: a.projectId ?? null,
      category: a.category ?? null,
    };
  });
}

/** Writes items read by readActivities for the caller: the rules that need the database, then one write session. */
export async function recordActivities(
  storage: Storage,
  caller: { user: UserRow; viewer: Viewer },
  items: readonly ActivityItem[],
  clock: () => number,
): Promise<Payload<RecordActivitiesResponse>> {
  const userId = caller.user.id;
  return writeRecords(storage, { clock, records: items.length }, async (session) => {
    const given = items.filter((item) => item.given).map((item) => item.id);
    // Another write of one of these ids (another user's) ends first, then its rows are seen.
    await lockIds(session, 'activity', given);
    // All the ids, new ones too: the upsert then needs no look-up of its own.
    const owners = await activityOwners(
      session,
      items.map((item) => item.id),
    );
    for (const item of items) {
      const owner = owners.get(item.id);
      if (owner !== undefined && owner !== userId)
        throw new ApiError(409, `Activity id already in use: ${quoted(item.id)}`);
    }

    const categoryValues = [...new Set(items.flatMap((item) => (item.category === null ? [] : [item.category])))];
    const categories = await categoriesNamed(session, categoryValues);
    const categoryIds = new Map<string, string>();
    // An id wins over a name: a category's id names it even where another is called that.
    for (const c of categories) if (!categoryIds.has(c.name)) categoryIds.set(c.name, c.id);
    for (const c of categories) categoryIds.set(c.id, c.id);

    const tasks = new Map(
      (
        await tasksByIds(session, [...new Set(items.flatMap((item) => (item.taskId === null ? [] : [item.taskId])))])
      ).map((t) => [t.id, t]),
    );

    const rows: ActivityWrite[] = [];
    const projectOf: (string | null)[] = [];
    for (const item of items) {
      if (item.category !== null && !categoryIds.has(item.category))
        throw badRequest(`Category not found: ${quoted(item.category)}`);
      const task = item.taskId === null ? undefined : tasks.get(item.taskId);
      if (item.taskId !== null && task?.userId !== userId) throw badRequest(`Unknown task id: ${quoted(item.taskId)}`);
      projectOf.push(item.projectId ?? task?.projectId ?? null);
    }

    const projects = new Map(
      (await projectsForLogging(session, [...new Set(projectOf.filter((p) => p !== null))])).map((p) => [p.id, p]),
    );
    items.forEach((item, i) => {
      const projectId = projectOf[i] ?? null;
      if (projectId !== null)
        checkLoggable(projects.get(projectId), caller.viewer, () =>
          badRequest(`Unknown project id: ${quoted(projectId)}`),
        );
      rows.push({
        id: item.id,
        user_id: userId,
        start: item.start,
        duration_minutes: item.durationMinutes,
        headline: item.headline,
        description: item.description,
        task_id: item.taskId,
        project_id: item.projectId,
        effective_project_id: projectId,
        category_id: item.category === null ? null : (categoryIds.get(item.category) ?? null),
        local_date: item.localDate,
      });
    });

    const taken = await upsertOwnActivities(session, rows);
    if (taken[0] !== undefined) throw new ApiError(409, `Activity id already in use: ${quoted(taken[0])}`);
    const updated = items.filter((item) => owners.has(item.id)).length;
    return { created: items.length - updated, updated, ids: items.map((item) => item.id) };
  });
}

export async function deleteActivity(storage: Storage, userId: string, id: string, clock: () => number): Promise<void> {
  const deleted = await writeRecords(storage, { clock }, (session) => deleteActivities(session, userId, [id]));
  if (deleted.length === 0) throw notFound('Activity not found');
}
