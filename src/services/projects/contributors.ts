/**
 * `contributorIds` of a team project: entries given as user ids, handles or e-mail addresses in
 * any mix, resolved to user ids that are all active members of the project's team.
 *
 * Entries are matched among the team's members only, so an answer tells nothing the team does
 * not already show: a user outside the team, known or not, is `No user matches …` (whether an
 * e-mail address has an account elsewhere stays unknown); a member whose membership is not
 * active is `Contributor <id> is not an active member of the team`.
 */
import type { Kysely } from 'kysely';
import { badRequest, shown } from '../../errors.ts';
import { type UserRef, teamMembersMatching } from '../../storage/projects.ts';
import type { Database } from '../../storage/schema.ts';

/** An entry names a user by id first, then by handle, then by e-mail address (ignoring case). */
function matchEntry<T extends UserRef>(entry: string, users: T[]): T | undefined {
  const wanted = entry.trim();
  const lowered = wanted.toLowerCase();
  return (
    users.find((u) => u.id === wanted) ??
    users.find((u) => u.handle === wanted) ??
    users.find((u) => u.email.toLowerCase() === lowered)
  );
}

/**
 * The contributor list to store for a project of `teamId` (null = personal). null stays null
 * (the whole team); a list becomes the matched user ids, in the order given, without repeats.
 */
export async function resolveContributors(
  db: Kysely<Database>,
  value: string[] | null,
  teamId: string | null,
): Promise<string[] | null> {
  if (value === null) return null;
  if (teamId === null) throw badRequest('Contributors can only be set on team projects');
  const members = await teamMembersMatching(
    db,
    teamId,
    value.map((entry) => entry.trim()),
  );
  const ids: string[] = [];
  for (const entry of value) {
    const user = matchEntry(entry, members);
    if (!user) throw badRequest(`No user matches "${shown(entry)}"; use a user id, handle, or email address`);
    if (!user.active) throw badRequest(`Contributor ${user.id} is not an active member of the team`);
    if (!ids.includes(user.id)) ids.push(user.id);
  }
  return ids;
}
