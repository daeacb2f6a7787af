/** A stored project as the API shows it (the Project resource of the spec, camelCase). */
import { toIso } from '../../lib/time.ts';
import type { Project } from '../../schemas/projects.ts';
import type { ProjectRow } from '../../storage/projects.ts';

/** The Project response schema's type (schemas/projects.ts), as the project commands name it. */
export type ProjectView = Project;

function parseContributorIds(stored: string | null): string[] | null {
  return stored === null ? null : (JSON.parse(stored) as string[]);
}

export function presentProject(row: ProjectRow): ProjectView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    color: row.color,
    portfolioId: row.portfolio_id,
    teamId: row.team_id,
    private: Boolean(row.private),
    confidential: Boolean(row.confidential),
    contributorIds: parseContributorIds(row.contributor_ids),
    status: row.archived ? 'archived' : 'active',
    createdAt: toIso(row.created_at),
    updatedAt: toIso(row.updated_at),
    usedAt: toIso(row.used_at),
    createdBy: row.created_by,
    // docs/api.md, "/projects": a project never updated through the API was last updated by its creator.
    updatedBy: row.updated_by ?? row.created_by,
  };
}
