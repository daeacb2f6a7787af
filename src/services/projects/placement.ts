/**
 * Where a project lives: its team and portfolio, named by id or by exact display name
 * (docs/api.md, "/projects"), and the rule that a portfolio holds only projects of its own scope.
 */
import { badRequest, shown } from '../../errors.ts';
import { isBlank } from '../../lib/blank.ts';
import type { PortfolioRef, TeamRef } from '../../storage/projects.ts';

/** An id matches first; otherwise the trimmed value must equal a name exactly (case-sensitive). */
function findByIdOrName<T extends { id: string; name: string }>(
  value: string,
  candidates: readonly T[],
): T | undefined {
  const wanted = value.trim();
  return candidates.find((c) => c.id === wanted) ?? candidates.find((c) => c.name.trim() === wanted);
}

/** One of the caller's active teams, else 400 `Team not found: "<value>"`. */
export function resolveTeam(value: string, activeTeams: readonly TeamRef[]): TeamRef {
  const team = findByIdOrName(value, activeTeams);
  if (!team) throw badRequest(`Team not found: "${shown(value)}"`);
  return team;
}

/** A portfolio the caller may use, else 400 `Portfolio not found: "<value>"`. */
export function resolvePortfolio(value: string, usable: readonly PortfolioRef[]): PortfolioRef {
  const portfolio = findByIdOrName(value, usable);
  if (!portfolio) throw badRequest(`Portfolio not found: "${shown(value)}"`);
  return portfolio;
}

/**
 * A team portfolio holds only that team's projects; a personal portfolio holds only personal
 * projects of its owner. `label` is how the caller named the portfolio.
 */
export function checkPortfolioFits(
  portfolio: PortfolioRef,
  project: { teamId: string | null; ownerId: string },
  label: string,
): void {
  if (portfolio.teamId !== null && portfolio.teamId !== project.teamId) {
    throw badRequest(`Portfolio "${shown(label)}" holds only projects of its team`);
  }
  if (portfolio.teamId === null && project.teamId !== null) {
    throw badRequest(`Portfolio "${shown(label)}" holds only personal projects`);
  }
  if (portfolio.teamId === null && portfolio.ownerId !== project.ownerId) {
    throw badRequest(`Portfolio "${shown(label)}" holds only its owner's projects`);
  }
}

/** `null`, `""` and whitespace clear a team or portfolio. */
export function isClearing(value: string | null): value is null | '' {
  return isBlank(value);
}
