/**
 * The project commands behind `/projects` and the deprecated `/project`: list, read, create and
 * update (archiving is an update). Every rule of the spec's Project resource lives here or in
 * the project-* modules it calls; the routes only translate HTTP.
 */
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { notFound } from '../../errors.ts';
import { localDateOf } from '../../lib/time.ts';
import type { UserRow } from '../../storage/accounts.ts';
import { markDaysNaming, restampChangedDays } from '../../storage/activities.ts';
import {
  findPortfolio,
  findProject,
  findProjectForUpdate,
  inProjectTransaction,
  insertProject,
  listVisibleProjects,
  pageOfVisibleProjects,
  type PortfolioRef,
  type ProjectChanges,
  type ProjectRow,
  type ProjectSortKey,
  portfoliosUsableBy,
  type TeamRef,
  teamsByIds,
  writeProjectChanges,
} from '../../storage/projects.ts';
import type { Database } from '../../storage/schema.ts';
import { canSeeProject, type Viewer } from './access.ts';
import { resolveContributors } from './contributors.ts';
import { isBlank } from '../../lib/blank.ts';
import { checkCursorFits, DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor } from './cursor.ts';
import { checkUpdateInput, type ProjectInput } from './fields.ts';
import { checkPortfolioFits, isClearing, resolvePortfolio, resolveTeam } from './placement.ts';
import { type ProjectView, presentProject } from './presenter.ts';

export interface ProjectContext {
  db: Kysely<Database>;
  /** The API key's owner. */
  user: UserRow;
  /**
   * The owner's active teams as authentication loaded them with the key (at most
   * DAYBOOK_KEY_CACHE_MS old, docs/api.md): every check of the caller's own memberships uses them.
   */
  viewer: Viewer;
  now: number;
  /** The clock, read again once an update has committed (see restampChangedDays). */
  clock?: () => number;
}

const PROJECT_NOT_FOUND = 'Project not found';

export async function listProjects(
  ctx: ProjectContext,
  options: { includeArchived: boolean; sort: ProjectSortKey },
): Promise<ProjectView[]> {
  return (await listVisibleProjects(ctx.db, ctx.user.id, options)).map(presentProject);
}

const SORT_FIELD = { createdAt: 'created_at', updatedAt: 'updated_at', usedAt: 'used_at' } as const;

/**
 * One page of the list: at most `limit` projects (DEFAULT_PAGE_SIZE when only a cursor is
 * given) after the cursor's position, and the cursor of the next page, or null after the last.
 */
export async function listProjectPage(
  ctx: ProjectContext,
  options: { includeArchived: boolean; sort: ProjectSortKey; limit?: number; cursor?: string },
): Promise<{ projects: ProjectView[]; nextCursor: string | null }> {
  const { sort, includeArchived } = options;
  const limit = options.limit ?? DEFAULT_PAGE_SIZE;
  let after: ReturnType<typeof decodeCursor> | undefined;
  if (options.cursor !== undefined) {
    after = decodeCursor(options.cursor);
    checkCursorFits(after, sort, includeArchived);
  }
  // One row more than the page tells whether another page follows.
  const rows = await pageOfVisibleProjects(ctx.db, ctx.user.id, { sort, includeArchived, limit: limit + 1, after });
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  let nextCursor: string | null = null;
  if (rows.length > limit && last) {
    const value = last[SORT_FIELD[sort]];
    nextCursor = encodeCursor({ sort, includeArchived, isNull: value === null, value, id: last.id });
  }
  return { projects: page.map(presentProject), nextCursor };
}

/** The project if the caller may see it; any other id, existing or not, is the same 404. */
function visibleOrNotFound(ctx: ProjectContext, project: ProjectRow | undefined): ProjectRow {
  if (!project || !canSeeProject({ teamId: project.team_id, createdBy: project.created_by }, ctx.viewer)) {
    throw notFound(PROJECT_NOT_FOUND);
  }
  return project;
}

export async function getProject(ctx: ProjectContext, id: string): Promise<ProjectView> {
  return presentProject(visibleOrNotFound(ctx, await findProject(ctx.db, id)));
}

function newProjectId(): string {
  return `p_${randomBytes(8).toString('hex')}`;
}

/** The caller's active teams, with their names (a team is named by id or by name). */
function activeTeams(ctx: ProjectContext): Promise<TeamRef[]> {
  return teamsByIds(ctx.db, [...ctx.viewer.activeTeamIds]);
}

/** The portfolios the caller owns or that belong to one of its active teams. */
function usablePortfolios(ctx: ProjectContext): Promise<PortfolioRef[]> {
  return portfoliosUsableBy(ctx.db, ctx.user.id, [...ctx.viewer.activeTeamIds]);
}

export async function createProject(ctx: ProjectContext, input: ProjectInput): Promise<ProjectView> {
  const teamId =
    input.team === undefined || isClearing(input.team) ? null : resolveTeam(input.team, await activeTeams(ctx)).id;
  let portfolioId: string | null = null;
  if (input.portfolio !== undefined && !isClearing(input.portfolio)) {
    const portfolio = resolvePortfolio(input.portfolio, await usablePortfolios(ctx));
    checkPortfolioFits(portfolio, { teamId, ownerId: ctx.user.id }, input.portfolio);
    portfolioId = portfolio.id;
  }
  const contributorIds =
    input.contributorIds === undefined ? null : await resolveContributors(ctx.db, input.contributorIds, teamId);

  const project: Omit<ProjectRow, 'used_at'> = {
    id: newProjectId(),
    name: isBlank(input.name) ? `New Project ${localDateOf(ctx.now, ctx.user.timezone)}` : input.name!,
    description: isBlank(input.description) ? null : input.description!,
    color: input.color ?? null,
    team_id: teamId,
    portfolio_id: portfolioId,
    private: input.private ? 1 : 0,
    confidential: input.confidential ? 1 : 0,
    contributor_ids: contributorIds === null ? null : JSON.stringify(contributorIds),
    archived: 0,
    created_by: ctx.user.id,
    updated_by: ctx.user.id,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  await insertProject(ctx.db, project);
  // Shown as written, not read back: no time is logged to a new project yet.
  return presentProject(asStored({ ...project, used_at: null }));
}

/**
 * Applies the update rules 1–6 of the spec and the side rules on contributors. Only fields
 * whose value really changes are written; a body that changes nothing leaves `updatedAt` alone.
 */
export async function updateProject(ctx: ProjectContext, id: string, input: ProjectInput): Promise<ProjectView> {
  checkUpdateInput(input);
  // Checked and written in one transaction on the locked row: an update racing another (a move
  // to another team against a contributor or portfolio change, from any server process) is
  // checked against the project as the other left it, never against what it was before.
  let renamed = false;
  const view = await inProjectTransaction(ctx.db, async (trx) => {
    const result = await applyUpdate({ ...ctx, db: trx }, id, input);
    renamed = result.renamed;
    return result.view;
  });
  // Summaries name the project: see restampChangedDays.
  if (renamed) await restampChangedDays(ctx.db, ctx.now, ctx.clock?.() ?? ctx.now);
  return view;
}

async function applyUpdate(
  ctx: ProjectContext,
  id: string,
  input: ProjectInput,
): Promise<{ view: ProjectView; renamed: boolean }> {
  const project = visibleOrNotFound(ctx, await findProjectForUpdate(ctx.db, id));

  const changes: ProjectChanges = {};
  if (input.name !== undefined && input.name !== null) changes.name = input.name;
  if (input.description !== undefined) changes.description = isBlank(input.description) ? null : input.description;
  if (input.color !== undefined) changes.color = input.color;
  if (input.private !== undefined) changes.private = input.private ? 1 : 0;
  if (input.archived !== undefined) changes.archived = input.archived ? 1 : 0;

  let teamId = project.team_id;
  if (input.team !== undefined) {
    teamId = isClearing(input.team) ? null : resolveTeam(input.team, await activeTeams(ctx)).id;
    changes.team_id = teamId;
  }
  const teamChanged = teamId !== project.team_id;

  let portfolio: PortfolioRef | null | undefined;
  let portfolioLabel = project.portfolio_id ?? '';
  if (input.portfolio !== undefined) {
    portfolio = isClearing(input.portfolio) ? null : resolvePortfolio(input.portfolio, await usablePortfolios(ctx));
    portfolioLabel = input.portfolio ?? '';
    changes.portfolio_id = portfolio?.id ?? null;
  } else if (teamChanged && project.portfolio_id !== null) {
    portfolio = await findPortfolio(ctx.db, project.portfolio_id);
  }
  if (portfolio && (input.portfolio !== undefined || teamChanged)) {
    checkPortfolioFits(portfolio, { teamId, ownerId: project.created_by }, portfolioLabel);
  }

  if (input.contributorIds !== undefined) {
    const ids = await resolveContributors(ctx.db, input.contributorIds, teamId);
    changes.contributor_ids = ids === null ? null : JSON.stringify(ids);
  } else if (teamChanged) {
    // Side rules 1 and 2: a new team (or personal scope) starts with the whole team allowed.
    changes.contributor_ids = null;
  }

  const effective = withoutUnchanged(changes, project);
  if (Object.keys(effective).length === 0) return { view: presentProject(project), renamed: false };
  const written = { ...effective, updated_by: ctx.user.id, updated_at: ctx.now };
  await writeProjectChanges(ctx.db, id, written);
  // Summaries name the project: those of the days with its time are rebuilt on the next run.
  if (effective.name !== undefined) await markDaysNaming(ctx.db, { projects: [id] }, ctx.now);
  // The locked row with the changes, not read back (nothing else writes it before the commit),
  // and without the visibility check: moving another member's project to personal scope hands
  // it to its creator, and the caller still gets to see the result of its own change.
  return { view: presentProject(asStored({ ...project, ...written })), renamed: effective.name !== undefined };
}

/**
 * A row as the database gives it back: both drivers write text as UTF-8, where a lone surrogate
 * of a JSON string (`"\ud800"`) becomes U+FFFD.
 */
function asStored(row: ProjectRow): ProjectRow {
  return { ...row, name: row.name.toWellFormed(), description: row.description?.toWellFormed() ?? null };
}

function withoutUnchanged(changes: ProjectChanges, project: ProjectRow): ProjectChanges {
  return Object.fromEntries(
    Object.entries(changes).filter(([key, value]) => project[key as keyof ProjectRow] !== value),
  ) as ProjectChanges;
}
