/** Heartbeats (decisions §8): stored as sent, read back by time for the days they make. */
import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { ActivityWrite } from './activities.ts';
import type { Database, HeartbeatsTable } from './schema.ts';
import { jsonList, jsonTextRows } from './text-list.ts';
import type { WriteSession } from './writes.ts';

export type HeartbeatWrite = Insertable<HeartbeatsTable>;
export type HeartbeatRead = Selectable<HeartbeatsTable>;

/**
 * Stores the heartbeats one user sent (distinct dedupe keys) but those the user had sent
 * before. Returns the stored heartbeat of each dedupe key, new or earlier, and which are new.
 * The new ones come back from the insert itself; only resent ones are looked up, by key (a
 * lookup of every key took 5–7 ms on PostgreSQL for a user with 20,000 heartbeats, which it
 * planned as a scan of all of them).
 */
export async function insertHeartbeats(
  session: WriteSession,
  userId: string,
  rows: HeartbeatWrite[],
): Promise<{ stored: Map<string, HeartbeatRead>; added: Set<string> }> {
  if (rows.length === 0) return { stored: new Map(), added: new Set() };
  const db = session.db;
  const inserted = await db
    .insertInto('heartbeats')
    .values(rows)
    .onConflict((oc) => oc.columns(['user_id', 'dedupe_key']).doNothing())
    .returningAll()
    .execute();
  const stored = new Map(inserted.map((h) => [h.dedupe_key, h]));
  const added = new Set(stored.keys());
  const resent = rows.filter((r) => !added.has(r.dedupe_key)).map((r) => r.dedupe_key);
  if (resent.length > 0) {
    const { rows: earlier } =
      await sql<HeartbeatRead>`select heartbeats.* from ${jsonTextRows(db, jsonList(resent), 'resent')}
      join heartbeats on heartbeats.user_id = ${userId} and heartbeats.dedupe_key = resent.value`.execute(db);
    for (const h of earlier) stored.set(h.dedupe_key, h);
  }
  return { stored, added };
}

/**
 * The user's heartbeats with `from` ≤ time < `to` (Unix seconds), in order of time (as the
 * index holds them, so a day's sort in JavaScript finds them nearly sorted).
 */
export async function heartbeatsBetween(
  session: WriteSession,
  userId: string,
  from: number,
  to: number,
): Promise<Pick<HeartbeatRead, 'time' | 'entity' | 'category' | 'project' | 'branch' | 'language'>[]> {
  return session.db
    .selectFrom('heartbeats')
    .select(['time', 'entity', 'category', 'project', 'branch', 'language'])
    .where('user_id', '=', userId)
    .where('time', '>=', from)
    .where('time', '<', to)
    .orderBy('time')
    .execute();
}

/** How many heartbeats the user has with `from` ≤ time < `to` (Unix seconds). */
export async function countHeartbeatsBetween(
  session: WriteSession,
  userId: string,
  from: number,
  to: number,
): Promise<number> {
  const row = await session.db
    .selectFrom('heartbeats')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('user_id', '=', userId)
    .where('time', '>=', from)
    .where('time', '<', to)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

const startsWith = (prefix: string) => sql<boolean>`substr(id, 1, ${prefix.length}) = ${prefix}`;

/** The user's activities of `date` whose id begins with `prefix`: what a recompute compares with. */
export async function activitiesWithPrefix(
  session: WriteSession,
  userId: string,
  date: string,
  prefix: string,
): Promise<Omit<ActivityWrite, 'user_id' | 'local_date' | 'effective_project_id'>[]> {
  const rows = await session.db
    .selectFrom('activities')
    .select(['id', 'start', 'duration_minutes', 'headline', 'description', 'task_id', 'project_id', 'category_id'])
    .where('user_id', '=', userId)
    .where('local_date', '=', date)
    .where(startsWith(prefix))
    .execute();
  return rows.map((r) => ({ ...r, start: Number(r.start) }));
}

/** Ids of the user's tasks of `date` whose id begins with `prefix`. */
export async function taskIdsWithPrefix(
  session: WriteSession,
  userId: string,
  date: string,
  prefix: string,
): Promise<string[]> {
  const rows = await session.db
    .selectFrom('tasks')
    .select('id')
    .where('user_id', '=', userId)
    .where('date', '=', date)
    .where(startsWith(prefix))
    .execute();
  return rows.map((r) => r.id);
}

/** The minutes of the user's activities on a local date, by project name and category name (null: none). */
export async function minutesOfDay(
  db: Kysely<Database>,
  userId: string,
  date: string,
): Promise<{ project: string | null; category: string | null; minutes: number }[]> {
  const rows = await db
    .selectFrom('activities as a')
    .leftJoin('projects as p', 'p.id', 'a.effective_project_id')
    .leftJoin('categories as c', 'c.id', 'a.category_id')
    .select((eb) => ['p.name as project', 'c.name as category', eb.fn.sum<number>('a.duration_minutes').as('minutes')])
    .where('a.user_id', '=', userId)
    .where('a.local_date', '=', date)
    .groupBy(['p.name', 'c.name'])
    .execute();
  return rows.map((r) => ({ project: r.project, category: r.category, minutes: Number(r.minutes) }));
}
