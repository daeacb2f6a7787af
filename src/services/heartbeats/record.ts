/**
 * WakaTime-compatible heartbeats (decisions §8; docs/api.md, "WakaTime-compatible heartbeats"):
 * each heartbeat checked on its own, the valid ones stored (a resent one once), then the local
 * days they can change recomputed from the user's stored heartbeats (sessions.ts) into
 * activities and tasks, in the write session the importer and the write API use, so reports,
 * search, `usedAt` and summaries follow at once.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { addDays, firstInstantOfLocalDay, toIso } from '../../lib/time.ts';
import type { UserRow } from '../../storage/accounts.ts';
import { type ActivityWrite, deleteActivities, upsertActivities } from '../../storage/activities.ts';
import type { Storage } from '../../storage/database.ts';
import {
  activitiesWithPrefix,
  countHeartbeatsBetween,
  type HeartbeatRead,
  type HeartbeatWrite,
  heartbeatsBetween,
  insertHeartbeats,
  taskIdsWithPrefix,
} from '../../storage/heartbeats.ts';
import { categoriesNamed, projectsNamed, upsertCategories, upsertProjects } from '../../storage/projects.ts';
import { deleteTasks, type TaskWrite, upsertTasks } from '../../storage/tasks.ts';
import { lockIds, type WriteSession, writeRecords } from '../../storage/writes.ts';
import { canSeeProject, type Viewer } from '../projects/access.ts';
import { loggingRefusal } from '../recording/rules.ts';
import { keptDayKey, keptDaysOf } from './kept-days.ts';
import { type Beat, blocksOf, daysTouched, type Piece, piecesOfDay } from './sessions.ts';

const ENTITY_TYPES = ['file', 'domain', 'url', 'app'] as const;
const MAX_FUTURE_S = 3600;
const MAX_AGE_S = 365 * 86_400;
/** Projects are named in at most 100 characters (docs/api.md, "/projects"). */
const PROJECT_NAME_LENGTH = 100;

interface Caller {
  user: UserRow;
  viewer: Viewer;
}

/** Where the request came from, as wakatime-cli tells it. */
export interface HeartbeatContext {
  machine: string | null;
  userAgent: string | null;
  timeoutMinutes: number;
  clock: () => number;
}

/** One heartbeat's answer: the stored heartbeat, or why it was refused. */
export type HeartbeatResult = { data: HeartbeatData; status: 201 } | { error: string; status: 400 };

interface HeartbeatData {
  id: string;
  user_id: string;
  time: number;
  entity: string;
  type: string;
  category: string;
  project: string | null;
  branch: string | null;
  language: string | null;
  is_write: boolean | null;
  lines: number | null;
  lineno: number | null;
  cursorpos: number | null;
  dependencies: string[] | null;
  user_agent: string | null;
  machine_name: string | null;
  created_at: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An optional text field: absent, null or "" is null; else a string of at most `max` characters. */
function text(item: Record<string, unknown>, field: string, max: number): string | null {
  const value = item[field];
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' || [...value].length > max)
    throw new Error(`${field} must be a string of at most ${max} characters, or null`);
  return value;
}

/**
 * The columns are 32-bit integers (PostgreSQL refused a larger one, and the whole request
 * answered 500: found by the OpenAPI fuzz).
 */
const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

function integerOrNull(item: Record<string, unknown>, field: string): number | null {
  const value = item[field];
  if (value === undefined || value === null) return null;
  if (!Number.isSafeInteger(value) || (value as number) < INT32_MIN || (value as number) > INT32_MAX)
    throw new Error(`${field} must be an integer from ${INT32_MIN} to ${INT32_MAX}, or null`);
  return value as number;
}

/** A heartbeat as sent, checked: the row to store, or an Error whose message names the field. */
function readHeartbeat(item: unknown, user: UserRow, context: HeartbeatContext, now: number): HeartbeatWrite {
  if (!isObject(item)) throw new Error('heartbeat must be a JSON object');
  const time = item.time;
  if (typeof time !== 'number' || !Number.isFinite(time) || time < 0)
    throw new Error('time must be a number of Unix seconds');
  if (time > now / 1000 + MAX_FUTURE_S) throw new Error('time must not be more than 1 hour in the future');
  if (time < now / 1000 - MAX_AGE_S) throw new Error('time must not be more than 365 days in the past');
  const entity = item.entity;
  if (typeof entity !== 'string' || entity.trim() === '' || [...entity].length > 2000)
    throw new Error('entity must be a string of 1 to 2000 characters');
  const type = item.type ?? 'file';
  if (typeof type !== 'string' || !(ENTITY_TYPES as readonly string[]).includes(type))
    throw new Error(`type must be one of: ${ENTITY_TYPES.join(', ')}`);
  const category = item.category ?? 'coding';
  if (typeof category !== 'string' || category.trim() === '' || [...category].length > 100)
    throw new Error('category must be a string of 1 to 100 characters');
  const isWrite = item.is_write;
  if (isWrite !== undefined && isWrite !== null && typeof isWrite !== 'boolean')
    throw new Error('is_write must be true, false or null');
  const dependencies = item.dependencies;
  if (
    dependencies !== undefined &&
    dependencies !== null &&
    !(
      Array.isArray(dependencies) &&
      dependencies.length <= 1000 &&
      dependencies.every((d) => typeof d === 'string' && d.length <= 300)
    )
  )
    throw new Error('dependencies must be a list of at most 1000 strings, or null');
  const row = {
    user_id: user.id,
    time,
    entity,
    type,
    category: category.trim(),
    project: text(item, 'project', 300),
    branch: text(item, 'branch', 300),
    language: text(item, 'language', 100),
    is_write: isWrite === undefined || isWrite === null ? null : isWrite ? 1 : 0,
    lines: integerOrNull(item, 'lines'),
    lineno: integerOrNull(item, 'lineno'),
    cursorpos: integerOrNull(item, 'cursorpos'),
    dependencies: dependencies === undefined || dependencies === null ? null : JSON.stringify(dependencies),
    user_agent: text(item, 'user_agent', 1000) ?? context.userAgent?.slice(0, 1000) ?? null,
    machine: context.machine?.slice(0, 300) ?? null,
    created_at: now,
  };
  // The fields that make two heartbeats the same (§8.5).
  const same = [row.time, row.entity, row.type, row.category, row.project, row.branch, row.language, row.is_write];
  return {
    ...row,
    id: randomUUID(),
    dedupe_key: createHash('sha256').update(JSON.stringify(same)).digest('base64url'),
  };
}

function present(h: HeartbeatRead): HeartbeatData {
  return {
    id: h.id,
    user_id: h.user_id,
    time: h.time,
    entity: h.entity,
    type: h.type,
    category: h.category,
    project: h.project,
    branch: h.branch,
    language: h.language,
    is_write: h.is_write === null ? null : Boolean(h.is_write),
    lines: h.lines,
    lineno: h.lineno,
    cursorpos: h.cursorpos,
    dependencies: h.dependencies === null ? null : (JSON.parse(h.dependencies) as string[]),
    user_agent: h.user_agent,
    machine_name: h.machine,
    created_at: toIso(Number(h.created_at))!,
  };
}

/** Stores the valid heartbeats, recomputes the days they change, and answers each in order. */
export async function recordHeartbeats(
  storage: Storage,
  caller: Caller,
  items: readonly unknown[],
  context: HeartbeatContext,
): Promise<HeartbeatResult[]> {
  const now = context.clock();
  const read = items.map((item) => {
    try {
      return readHeartbeat(item, caller.user, context, now);
    } catch (err) {
      return err as Error;
    }
  });
  const rows = [...new Map(read.flatMap((r) => (r instanceof Error ? [] : [[r.dedupe_key, r] as const]))).values()];
  const keptDays = keptDaysOf(storage);
  const toKeep = new Map<string, readonly Beat[]>();
  const stored = await writeRecords(storage, { clock: context.clock, records: rows.length }, async (session) => {
    // One user's heartbeats are derived one request at a time (other server processes included).
    await lockIds(session, 'heartbeats of user', [caller.user.id]);
    const { stored, added } = await insertHeartbeats(session, caller.user.id, rows);
    const timeoutMs = context.timeoutMinutes * 60_000;
    // As the database returned them, so that a kept day holds what a read of it would.
    const fresh = [...added].map((key) => stored.get(key)!);
    const days = new Set(fresh.flatMap((h) => daysTouched(h.time * 1000, caller.user.timezone, timeoutMs)));
    const work = { session, keptDays, fresh, toKeep };
    for (const date of [...days].sort()) await recomputeDay(work, caller, date, timeoutMs, now);
    return stored;
  });
  // Only now that they are committed.
  for (const [key, beats] of toKeep) keptDays.set(key, beats);
  return read.map((r) =>
    r instanceof Error
      ? { error: r.message, status: 400 as const }
      : { data: present(stored.get(r.dedupe_key)!), status: 201 as const },
  );
}

/** A heartbeat as the session rule reads it: whole milliseconds, as activities' starts are. */
const toBeat = (h: HeartbeatRead): Beat => ({
  time: Math.round(h.time * 1000),
  project: h.project,
  category: h.category,
  entity: h.entity,
  language: h.language,
  branch: h.branch,
});

/** What a recompute of a day works with: the write session, and the days this process keeps. */
interface DayWork {
  session: WriteSession;
  keptDays: ReturnType<typeof keptDaysOf>;
  /** The heartbeats this request added. */
  fresh: HeartbeatRead[];
  /** The days' heartbeats to keep once the transaction has committed. */
  toKeep: Map<string, readonly Beat[]>;
}

/** What names the user's derived records: a short hash, so ids stay short whatever the user id. */
const userTag = (userId: string) => createHash('sha256').update(userId).digest('base64url').slice(0, 10);
const tagOf = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 12);

/** `coding` → `Coding`, `writing tests` → `Writing tests`. */
const categoryName = (category: string) => category.charAt(0).toLocaleUpperCase('en') + category.slice(1);

/**
 * The time of one local day from the user's heartbeats, replacing what an earlier run derived
 * for that day: activities `hb_<user>_<date>_a<n>` and tasks `hb_<user>_<date>_t<project>`.
 */
async function recomputeDay(
  { session, keptDays, fresh, toKeep }: DayWork,
  caller: Caller,
  date: string,
  timeoutMs: number,
  now: number,
): Promise<void> {
  const { user } = caller;
  const timezone = user.timezone;
  const dayStart = firstInstantOfLocalDay(date, timezone);
  const dayEnd = firstInstantOfLocalDay(addDays(date, 1), timezone);
  const from = (dayStart - timeoutMs) / 1000;
  const to = (dayEnd + timeoutMs) / 1000;
  const key = keptDayKey(user.id, from, to);
  const kept = keptDays.get(key);
  const added = fresh.filter((h) => h.time >= from && h.time < to).map(toBeat);
  let beats: Beat[];
  if (kept && (await countHeartbeatsBetween(session, user.id, from, to)) === kept.length + added.length) {
    beats = [...kept, ...added].sort((a, b) => a.time - b.time);
  } else {
    beats = await heartbeatsBetween(session, user.id, from, to);
    // Whole milliseconds, as activities' starts are; in place, as a day may hold tens of thousands.
    for (const beat of beats) beat.time = Math.round(beat.time * 1000);
  }
  toKeep.set(key, beats);
  const pieces = piecesOfDay(beats, date, timezone, timeoutMs);

  const projects = await projectsFor(session, caller, pieces, now);
  const categories = await categoriesFor(session, pieces);
  const prefix = `hb_${userTag(user.id)}_${date}_`;
  const tasks = new Map<string, TaskWrite>();
  const activities: ActivityWrite[] = [];
  for (const piece of pieces.sort((a, b) => a.start - b.start)) {
    const projectId = piece.project === null ? null : (projects.get(piece.project) ?? null);
    const taskId = `${prefix}t${projectId === null ? 'none' : tagOf(projectId)}`;
    if (!tasks.has(taskId))
      tasks.set(taskId, {
        id: taskId,
        user_id: user.id,
        date,
        title: projectId === null ? 'No project' : (piece.project ?? 'No project').slice(0, PROJECT_NAME_LENGTH),
        description: null,
        project_id: projectId,
        visible: 1,
        created_at: dayStart,
        created_at_auto: 1,
      });
    const category = categoryName(piece.category);
    const described = [
      category,
      piece.languages.length > 0 ? `Languages: ${piece.languages.join(', ')}` : null,
      piece.branches.length > 0 ? `Branches: ${piece.branches.join(', ')}` : null,
    ].filter((part) => part !== null);
    for (const [start, minutes] of blocksOf(piece)) {
      activities.push({
        // Named by where it starts in the day, so a heartbeat that changes one piece rewrites only it.
        id: `${prefix}a${(start - dayStart).toString(36)}`,
        user_id: user.id,
        start,
        duration_minutes: minutes,
        headline: (piece.project ?? category).slice(0, 300),
        description: described.join('. ').slice(0, 5000),
        task_id: taskId,
        project_id: projectId,
        effective_project_id: projectId,
        category_id: categories.get(category) ?? null,
        local_date: date,
      });
    }
  }

  // Only what differs from the last recompute is written: most of a day stays as it was.
  // Every derived activity on the day, whatever day its id names: after a change of the user's
  // timezone, activities derived for another date may lie on this one, and are replaced here.
  const before = new Map(
    (await activitiesWithPrefix(session, user.id, date, `hb_${userTag(user.id)}_`)).map((a) => [a.id, a]),
  );
  const changed = activities.filter((a) => {
    const was = before.get(a.id);
    return (
      was === undefined ||
      was.start !== a.start ||
      was.duration_minutes !== a.duration_minutes ||
      was.headline !== a.headline ||
      was.description !== a.description ||
      was.task_id !== a.task_id ||
      was.project_id !== a.project_id ||
      was.category_id !== a.category_id
    );
  });
  const wanted = new Set(activities.map((a) => a.id));
  await deleteActivities(
    session,
    user.id,
    [...before.keys()].filter((id) => !wanted.has(id)),
  );
  const storedTasks = await taskIdsWithPrefix(session, user.id, date, `${prefix}t`);
  await upsertTasks(
    session,
    [...tasks.values()].filter((t) => !storedTasks.includes(t.id)),
  );
  await upsertActivities(session, changed);
  await deleteTasks(
    session,
    user.id,
    storedTasks.filter((id) => !tasks.has(id)),
  );
}

/**
 * The project each heartbeat project name lands in (§8.7): the caller's visible project of that
 * name, one it may log time to first; none when it may log to none of them; else a personal
 * project of that name, created now.
 */
async function projectsFor(
  session: WriteSession,
  caller: Caller,
  pieces: readonly Piece[],
  now: number,
): Promise<Map<string, string | null>> {
  const names = [...new Set(pieces.flatMap((p) => (p.project === null ? [] : [p.project])))];
  const stored = await projectsNamed(session, [...new Set(names.map((name) => name.slice(0, PROJECT_NAME_LENGTH)))]);
  const chosen = new Map<string, string | null>();
  const created = [];
  for (const name of names) {
    const named = name.slice(0, PROJECT_NAME_LENGTH);
    const visible = stored.filter((p) => p.name === named && canSeeProject(p, caller.viewer));
    if (visible.length > 0) {
      chosen.set(name, visible.find((p) => loggingRefusal(p, caller.viewer) === null)?.id ?? null);
      continue;
    }
    const id = `p_${randomBytes(8).toString('hex')}`;
    created.push({
      id,
      name: named,
      description: null,
      color: null,
      team_id: null,
      portfolio_id: null,
      private: 0,
      confidential: 0,
      contributor_ids: null,
      archived: 0,
      created_by: caller.user.id,
      updated_by: null,
      created_at: now,
      updated_at: null,
    });
    stored.push({ id, name: named, teamId: null, createdBy: caller.user.id, archived: false, contributorIds: null });
    chosen.set(name, id);
  }
  await upsertProjects(session, created);
  return chosen;
}

/** The category of each piece's category name, created where missing (ids by name, so every process makes the same). */
async function categoriesFor(session: WriteSession, pieces: readonly Piece[]): Promise<Map<string, string>> {
  const names = [...new Set(pieces.map((p) => categoryName(p.category)))];
  const ids = new Map<string, string>();
  for (const c of await categoriesNamed(session, names))
    if (names.includes(c.name) && !ids.has(c.name)) ids.set(c.name, c.id);
  const missing = names
    .filter((name) => !ids.has(name))
    .map((name) => ({ id: `c_hb_${tagOf(name)}`, name, emoji: null }));
  await upsertCategories(session, missing);
  for (const c of missing) ids.set(c.name, c.id);
  return ids;
}
