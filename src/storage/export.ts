/**
 * The pages an export reads: each table in a fixed order (by id; day comments by user, then
 * date), PAGE rows after the last key of the page before, so memory stays flat and the same
 * data always reads the same.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, TeamMembersTable, TeamsTable } from './schema.ts';

const PAGE = 2000;

type Db = Kysely<Database>;

export function usersAfter(db: Db, after: string) {
  return db.selectFrom('users').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute();
}

/** Teams, each with its members in listed order. */
export async function teamsAfter(
  db: Db,
  after: string,
): Promise<(Selectable<TeamsTable> & { members: Selectable<TeamMembersTable>[] })[]> {
  const teams = await db.selectFrom('teams').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute();
  if (teams.length === 0) return [];
  const members = await db
    .selectFrom('team_members')
    .selectAll()
    .where(
      'team_id',
      'in',
      teams.map((t) => t.id),
    )
    .orderBy('team_id')
    .orderBy('position')
    .orderBy('user_id')
    .execute();
  return teams.map((t) => ({ ...t, members: members.filter((m) => m.team_id === t.id) }));
}

export function portfoliosAfter(db: Db, after: string) {
  return db.selectFrom('portfolios').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute();
}

export function categoriesAfter(db: Db, after: string) {
  return db.selectFrom('categories').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute();
}

export function projectsAfter(db: Db, after: string) {
  return db.selectFrom('projects').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute();
}

export function tasksAfter(db: Db, after: string) {
  return db.selectFrom('tasks').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute();
}

export function activitiesAfter(db: Db, after: string) {
  return db.selectFrom('activities').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute();
}

/** Day comments after the (user, date) `after`; the first page after ('', ''). */
export function dayCommentsAfter(db: Db, after: { userId: string; date: string }) {
  return db
    .selectFrom('day_comments')
    .selectAll()
    .where((eb) =>
      eb.or([
        eb('user_id', '>', after.userId),
        eb.and([eb('user_id', '=', after.userId), eb('date', '>', after.date)]),
      ]),
    )
    .orderBy('user_id')
    .orderBy('date')
    .limit(PAGE)
    .execute();
}

export function apiKeysAfter(db: Db, after: string) {
  return db.selectFrom('api_keys').selectAll().where('id', '>', after).orderBy('id').limit(PAGE).execute();
}
