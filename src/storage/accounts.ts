/** Users, teams and API keys. */
import type { Insertable, Kysely, Selectable } from 'kysely';
import { recomputeLocalDates } from './activities.ts';
import type { Storage } from './database.ts';
import type { ApiKeysTable, Database, TeamMembersTable, TeamsTable, UsersTable } from './schema.ts';
import type { WriteSession } from './writes.ts';

export type UserRow = Selectable<UsersTable>;

export interface KeyWithUser {
  keyId: string;
  scopes: string[];
  revoked: boolean;
  lastUsedAt: number | null;
  user: UserRow;
}

export async function findKeyByHash(db: Kysely<Database>, keyHash: string): Promise<KeyWithUser | null> {
  const row = await db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .select([
      'k.id as key_id',
      'k.scopes',
      'k.revoked',
      'k.last_used_at',
      'u.id',
      'u.email',
      'u.name',
      'u.display_name',
      'u.handle',
      'u.timezone',
      'u.plan',
      'u.daily_target_minutes',
      'u.week_start',
      'u.created_at',
    ])
    .where('k.key_hash', '=', keyHash)
    .executeTakeFirst();
  if (!row) return null;
  const { key_id, scopes, revoked, last_used_at, ...user } = row;
  return {
    keyId: key_id,
    scopes: scopes.split(' ').filter(Boolean),
    revoked: Boolean(revoked),
    lastUsedAt: last_used_at,
    user,
  };
}

/**
 * Records a key's use. On SQLite the stamp never waits for another process's write lock (an
 * import holds it for minutes, and better-sqlite3 would wait with the whole process held up):
 * it fails at once and a later request tries again. Nor does it wait for the disk: a stamp lost
 * at a power cut leaves the key's use before it, and a synced commit meanwhile (a write's log
 * still being synced from another thread, storage/wal-sync.ts) would have made this request wait
 * for that write's pages too (7 ms a stamp under a load of large batches).
 */
export async function touchKey(storage: Storage, keyId: string, at: number): Promise<void> {
  const { sqlite } = storage;
  const update = storage.db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', keyId);
  if (!sqlite) {
    await update.execute();
    return;
  }
  const { sql: text, parameters } = update.compile();
  // Holding the connection, so that no other request's transaction is open on it.
  // Holding the write lock shared with the write thread, where there is one: the thread's
  // writes follow one another too closely for a stamp that does not wait to find the file free.
  await storage.db.connection().execute(() =>
    sqlite.writing(() =>
      sqlite.unsynced(async () => {
        sqlite.withoutWaiting(() => sqlite.prepare(text).run(...(parameters as unknown[])));
      }),
    ),
  );
}

export async function findUser(db: Kysely<Database>, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Ids of the teams in which the user has an active membership. */
export async function activeTeamIds(db: Kysely<Database>, userId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('team_members')
    .select('team_id')
    .where('user_id', '=', userId)
    .where('status', '=', 'active')
    .execute();
  return rows.map((r) => r.team_id);
}

/** The name shown for a user: settings name, else identity-provider name, else e-mail local part. */
export function displayNameOf(user: Pick<UserRow, 'name' | 'display_name' | 'email'>): string {
  const name = user.name?.trim();
  if (name) return name;
  const display = user.display_name?.trim();
  if (display) return display;
  return user.email.split('@')[0] ?? user.email;
}

export interface NewUser {
  id: string;
  email: string;
  name: string | null;
  displayName: string | null;
  handle: string | null;
  timezone: string;
  plan: UserRow['plan'];
  dailyTargetMinutes: number;
  weekStart: UserRow['week_start'];
  createdAt: number;
}

export async function insertUser(db: Kysely<Database>, u: NewUser): Promise<void> {
  await db
    .insertInto('users')
    .values({
      id: u.id,
      email: u.email,
      name: u.name,
      display_name: u.displayName,
      handle: u.handle,
      timezone: u.timezone,
      plan: u.plan,
      daily_target_minutes: u.dailyTargetMinutes,
      week_start: u.weekStart,
      created_at: u.createdAt,
    })
    .execute();
}

export async function listUsers(db: Kysely<Database>): Promise<UserRow[]> {
  return db.selectFrom('users').selectAll().orderBy('id').execute();
}

export type UserChanges = Partial<
  Pick<
    UserRow,
    'email' | 'name' | 'display_name' | 'handle' | 'timezone' | 'plan' | 'daily_target_minutes' | 'week_start'
  >
>;

/** Changes a user's fields; a new timezone moves each of their activities to its local day in it. */
export async function updateUser(session: WriteSession, id: string, changes: UserChanges): Promise<void> {
  const db = session.db;
  const before =
    changes.timezone === undefined
      ? undefined
      : await db.selectFrom('users').select('timezone').where('id', '=', id).executeTakeFirst();
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
  if (before && changes.timezone && changes.timezone !== before.timezone)
    await moveToTimezone(session, id, changes.timezone);
}

/** The user's activities move to their local days in `timezone`; those days changed. */
async function moveToTimezone(session: WriteSession, userId: string, timezone: string): Promise<void> {
  // The moves go through the rollup triggers.
  await session.endDeferredUpkeep();
  const moved = await recomputeLocalDates(session.db, userId, timezone);
  session.daysChanged(moved.map((date) => ({ user_id: userId, local_date: date })));
}

export async function insertTeam(db: Kysely<Database>, id: string, name: string): Promise<void> {
  await db.insertInto('teams').values({ id, name }).execute();
}

/** Every team with how many members it has, active and in all, by id. */
export async function listTeams(
  db: Kysely<Database>,
): Promise<{ id: string; name: string; activeMembers: number; members: number }[]> {
  const rows = await db
    .selectFrom('teams as t')
    .leftJoin('team_members as m', 'm.team_id', 't.id')
    .select((eb) => [
      't.id',
      't.name',
      eb.fn.count<number>('m.user_id').as('members'),
      eb.fn.sum<number>(eb.case().when('m.status', '=', 'active').then(1).else(0).end()).as('active'),
    ])
    .groupBy(['t.id', 't.name'])
    .orderBy('t.id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    activeMembers: Number(r.active ?? 0),
    members: Number(r.members),
  }));
}

export async function findTeam(db: Kysely<Database>, id: string) {
  return db.selectFrom('teams').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function upsertMember(
  db: Kysely<Database>,
  m: { teamId: string; userId: string; status: 'active' | 'inactive'; role: 'member' | 'admin' },
): Promise<void> {
  const position = await db
    .selectFrom('team_members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('team_id', '=', m.teamId)
    .executeTakeFirstOrThrow();
  await db
    .insertInto('team_members')
    .values({ team_id: m.teamId, user_id: m.userId, status: m.status, role: m.role, position: Number(position.n) })
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doUpdateSet({ status: m.status, role: m.role }))
    .execute();
}

export async function setMemberStatus(
  db: Kysely<Database>,
  teamId: string,
  userId: string,
  status: 'active' | 'inactive',
): Promise<boolean> {
  const result = await db
    .updateTable('team_members')
    .set({ status })
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertApiKey(
  db: Kysely<Database>,
  k: { id: string; userId: string; name: string; keyHash: string; scopes: string[]; createdAt: number },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: k.id,
      user_id: k.userId,
      name: k.name,
      key_hash: k.keyHash,
      scopes: k.scopes.join(' '),
      revoked: 0,
      created_at: k.createdAt,
      last_used_at: null,
    })
    .execute();
}

export async function listApiKeys(db: Kysely<Database>, userId?: string) {
  let query = db
    .selectFrom('api_keys')
    .select(['id', 'user_id', 'name', 'scopes', 'revoked', 'created_at', 'last_used_at'])
    .orderBy('user_id')
    .orderBy('id');
  if (userId) query = query.where('user_id', '=', userId);
  return query.execute();
}

export async function revokeApiKey(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.updateTable('api_keys').set({ revoked: 1 }).where('id', '=', id).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Inserts or replaces users by id (distinct ids). A user whose timezone changes has every
 * activity moved to its local day in the new zone.
 */
export async function upsertUsers(session: WriteSession, rows: Insertable<UsersTable>[]): Promise<void> {
  if (rows.length === 0) return;
  const db = session.db;
  const before = new Map(
    (
      await db
        .selectFrom('users')
        .select(['id', 'timezone'])
        .where(
          'id',
          'in',
          rows.map((u) => u.id),
        )
        .execute()
    ).map((u) => [u.id, u.timezone]),
  );
  await db
    .insertInto('users')
    .values(rows)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        email: eb.ref('excluded.email'),
        name: eb.ref('excluded.name'),
        display_name: eb.ref('excluded.display_name'),
        handle: eb.ref('excluded.handle'),
        timezone: eb.ref('excluded.timezone'),
        plan: eb.ref('excluded.plan'),
        daily_target_minutes: eb.ref('excluded.daily_target_minutes'),
        week_start: eb.ref('excluded.week_start'),
        created_at: eb.ref('excluded.created_at'),
      })),
    )
    .execute();
  for (const u of rows) {
    const old = before.get(u.id);
    if (old !== undefined && old !== u.timezone) await moveToTimezone(session, u.id, u.timezone);
  }
}

/**
 * Inserts or replaces teams by id (distinct ids); `members` are their whole member lists (each
 * user once per team), which replace the stored ones.
 */
export async function upsertTeams(
  session: WriteSession,
  teams: Insertable<TeamsTable>[],
  members: Insertable<TeamMembersTable>[],
): Promise<void> {
  if (teams.length === 0) return;
  const db = session.db;
  await db
    .insertInto('teams')
    .values(teams)
    .onConflict((oc) => oc.column('id').doUpdateSet((eb) => ({ name: eb.ref('excluded.name') })))
    .execute();
  await db
    .deleteFrom('team_members')
    .where(
      'team_id',
      'in',
      teams.map((t) => t.id),
    )
    .execute();
  if (members.length > 0) await db.insertInto('team_members').values(members).execute();
}

/** Inserts or replaces API keys by id (distinct ids); a replaced key keeps its `created_at` and last use. */
export async function upsertApiKeys(session: WriteSession, rows: Insertable<ApiKeysTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await session.db
    .insertInto('api_keys')
    .values(rows)
    .onConflict((oc) =>
      oc.column('id').doUpdateSet((eb) => ({
        user_id: eb.ref('excluded.user_id'),
        name: eb.ref('excluded.name'),
        key_hash: eb.ref('excluded.key_hash'),
        scopes: eb.ref('excluded.scopes'),
        revoked: eb.ref('excluded.revoked'),
      })),
    )
    .execute();
}
