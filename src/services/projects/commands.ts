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
  activeTeamsOf,
  findPortfolio,
  findProject,
  insertProject,
  lockProject,
  listVisibleProjects,
  type PortfolioRef,
  type ProjectChanges,
  type ProjectRow,
  type ProjectSortKey,
  portfoliosUsableBy,
  updateProject as writeProjectChanges,
} from '../../storage/projects.ts';
import type { Database } from '../../storage/schema.ts';
import { canSeeProject, loadViewer } from './access.ts';
import { resolveContributors } from './contributors.ts';
import { isBlank } from '../../lib/blank.ts';
import { checkUpdateInput, type ProjectInput } from './fields.ts';
import { checkPortfolioFits, isClearing, resolvePortfolio, resolveTeam } from './placement.ts';
import { type ProjectView, presentProject } from './presenter.ts';

export interface ProjectContext {
  db: Kysely<Database>;
  /** The API key's owner. */
  user: UserRow;
  now: number;
  /** The clock, read again once an update has committed (see restampChangedDays). */
  clock?: () => number;
}

export const PROJECT_NOT_FOUND = 'Project not found';

export async function listProjects(
  ctx: ProjectContext,
  options: { includeArchived: boolean; sort: ProjectSortKey },
): Promise<ProjectView[]> {
  return (await listVisibleProjects(ctx.db, ctx.user.id, options)).map(presentProject);
}

/** The project if the caller may see it; any other id, existing or not, is the same 404. */
async function loadVisibleProject(ctx: ProjectContext, id: string): Promise<ProjectRow> {
  const [project, viewer] = await Promise.all([findProject(ctx.db, id), loadViewer(ctx.db, ctx.user.id)]);
  if (!project || !canSeeProject({ teamId: project.team_id, createdBy: project.created_by }, viewer)) {
    throw notFound(PROJECT_NOT_FOUND);
  }
  return project;
}

export async function getProject(ctx: ProjectContext, id: string): Promise<ProjectView> {
  return presentProject(await loadVisibleProject(ctx, id));
}

function newProjectId(): string {
  return `p_${randomBytes(8).toString('hex')}`;
}

/** Team and portfolio resolution needs the caller's active teams and usable portfolios. */
async function placementOptions(ctx: ProjectContext) {
  const teams = await activeTeamsOf(ctx.db, ctx.user.id);
  const portfolios = await portfoliosUsableBy(
    ctx.db,
    ctx.user.id,
    teams.map((t) => t.id),
  );
  return { teams, portfolios };
}

export async function createProject(ctx: ProjectContext, input: ProjectInput): Promise<ProjectView> {
  const { teams, portfolios } = await placementOptions(ctx);

  const teamId = input.team === undefined || isClearing(input.team) ? null : resolveTeam(input.team, teams).id;
  let portfolioId: string | null = null;
  if (input.portfolio !== undefined && !isClearing(input.portfolio)) {
    const portfolio = resolvePortfolio(input.portfolio, portfolios);
    checkPortfolioFits(portfolio, { teamId, ownerId: ctx.user.id }, input.portfolio);
    portfolioId = portfolio.id;
  }
  const contributorIds =
    input.contributorIds === undefined ? null : await resolveContributors(ctx.db, input.contributorIds, teamId);

  const id = newProjectId();
  await insertProject(ctx.db, {
    id,
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
  });
  return getProject(ctx, id);
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
  const view = await ctx.db.transaction().execute(async (trx) => {
    await lockProject(trx, id);
    const result = await applyUpdate({ ...ctx, db: trx }, id, input);
    renamed = result.renamed;
    return result.view;
  });
  // Summaries name the project: see restampChangedDays.
  if (renamed) await restampChangedDays(ctx.db, ctx.now, ctx.clock?.() ?? ctx.now);
  return view;
}

async function applyUpdate(ctx: ProjectContext, id: string, input: ProjectInput): Promise<{ view: ProjectView; renamed: boolean }> {
  const project = await loadVisibleProject(ctx, id);

  const changes: ProjectChanges = {};
  if (input.name !== undefined && input.name !== null) changes.name = input.name;
  if (input.description !== undefined) changes.description = isBlank(input.description) ? null : input.description;
  if (input.color !== undefined) changes.color = input.color;
  if (input.private !== undefined) changes.private = input.private ? 1 : 0;
  if (input.archived !== undefined) changes.archived = input.archived ? 1 : 0;

  const needsPlacement = input.team !== undefined || input.portfolio !== undefined;
  const { teams, portfolios } = needsPlacement ? await placementOptions(ctx) : { teams: [], portfolios: [] };

  let teamId = project.team_id;
  if (input.team !== undefined) {
    teamId = isClearing(input.team) ? null : resolveTeam(input.team, teams).id;
    changes.team_id = teamId;
  }
  const teamChanged = teamId !== project.team_id;

  let portfolio: PortfolioRef | null | undefined;
  let portfolioLabel = project.portfolio_id ?? '';
  if (input.portfolio !== undefined) {
    portfolio = isClearing(input.portfolio) ? null : resolvePortfolio(input.portfolio, portfolios);
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
  await writeProjectChanges(ctx.db, id, { ...effective, updated_by: ctx.user.id, updated_at: ctx.now });
  // Summaries name the project: those of the days with its time are rebuilt on the next run.
  if (effective.name !== undefined) await markDaysNaming(ctx.db, { projects: [id] }, ctx.now);
  // Read back without the visibility check: moving another member's project to personal scope
  // hands it to its creator, and the caller still gets to see the result of its own change.
  const updated = await findProject(ctx.db, id);
  if (!updated) throw notFound(PROJECT_NOT_FOUND);
  return { view: presentProject(updated), renamed: effective.name !== undefined };
}

function withoutUnchanged(changes: ProjectChanges, project: ProjectRow): ProjectChanges {
  return Object.fromEntries(
    Object.entries(changes).filter(([key, value]) => project[key as keyof ProjectRow] !== value),
  ) as ProjectChanges;
}
