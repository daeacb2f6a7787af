/**
 * Who may see, change and log time to a project. Reports, search and the project routes all
 * ask these functions, so the visibility rule (docs/api.md, "/projects") has one home.
 */
import type { Kysely } from 'kysely';
import { activeTeamIds } from '../../storage/accounts.ts';
import type { Database } from '../../storage/schema.ts';

export { visibleProjectIds } from '../../storage/projects.ts';

/** A user together with the teams in which it is an active member. */
export interface Viewer {
  userId: string;
  activeTeamIds: ReadonlySet<string>;
}

/** The fields of a project that decide access. */
export interface ProjectScope {
  teamId: string | null;
  createdBy: string;
}

export async function loadViewer(db: Kysely<Database>, userId: string): Promise<Viewer> {
  return { userId, activeTeamIds: new Set(await activeTeamIds(db, userId)) };
}

/**
 * docs/api.md, "/projects": a user sees and changes its own personal projects and every project of a
 * team in which it has an active membership. A personal project belongs to its creator alone;
 * an inactive membership grants nothing.
 */
export function canSeeProject(project: ProjectScope, viewer: Viewer): boolean {
  if (project.teamId === null) return project.createdBy === viewer.userId;
  return viewer.activeTeamIds.has(project.teamId);
}

/**
 * May the user log time to the project through a live API write? `contributorIds` narrows a
 * team project: null lets every active member log time, [] nobody, a list only those users
 * (who must still be active members). A personal project takes time from its owner only.
 * Imports restore history and are not checked (dataset README rule 6).
 */
export function mayLogTime(
  project: ProjectScope & { contributorIds: readonly string[] | null },
  viewer: Viewer,
): boolean {
  if (!canSeeProject(project, viewer)) return false;
  if (project.teamId === null || project.contributorIds === null) return true;
  return project.contributorIds.includes(viewer.userId);
}
