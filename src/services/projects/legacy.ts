/**
 * The deprecated operation-based `/project` endpoint, kept for existing integrations. Each
 * operation maps onto the same project commands as `/projects`; only the request conventions
 * (`""` clears, `archived` on list and archive) and the success shapes are its own.
 */
import { badRequest, forbidden } from '../../errors.ts';
import { isBlank } from '../../lib/blank.ts';
import { checkLegacyColorLength, type ProjectInput } from './fields.ts';
import type { ProjectView } from './presenter.ts';
import { createProject, listProjects, type ProjectContext, updateProject } from './commands.ts';

export const LEGACY_OPERATIONS = ['list', 'create', 'update', 'delete', 'archive'] as const;

export const DELETE_REFUSED = 'Deleting projects is not available through the API.';

export interface LegacyRequest {
  operation?: string;
  id?: string;
  name?: string | null;
  description?: string | null;
  /** Any JSON value: checked by the project services, so a wrong one is `Invalid color value`. */
  color?: unknown;
  team?: string | null;
  portfolio?: string | null;
  private?: boolean;
  confidential?: boolean;
  archived?: boolean;
}

export type LegacyResult =
  | { projects: ProjectView[] }
  | { message: string; projectId: string }
  | { message: string };

function requireId(request: LegacyRequest): string {
  if (isBlank(request.id)) throw badRequest('id is required');
  return request.id!;
}

/** On this endpoint an empty string means the same as null: no value, or clear it on update. */
function emptyAsNull<T>(value: T): T | null {
  return value === '' ? null : value;
}

function toProjectInput(request: LegacyRequest): ProjectInput {
  checkLegacyColorLength(request.color);
  return {
    name: request.name,
    description: emptyAsNull(request.description),
    color: emptyAsNull(request.color),
    team: request.team,
    portfolio: request.portfolio,
    private: request.private,
    confidential: request.confidential,
  };
}

export async function runLegacyOperation(ctx: ProjectContext, request: LegacyRequest): Promise<LegacyResult> {
  // An empty body is a list request.
  const operation = request.operation ?? 'list';
  switch (operation) {
    case 'list':
      return { projects: await listProjects(ctx, { includeArchived: request.archived === true, sort: 'createdAt' }) };
    case 'create': {
      if (isBlank(request.name)) throw badRequest('name is required');
      const project = await createProject(ctx, toProjectInput(request));
      return { message: 'Project created', projectId: project.id };
    }
    case 'update': {
      const id = requireId(request);
      const project = await updateProject(ctx, id, toProjectInput(request));
      return { message: 'Project updated', projectId: project.id };
    }
    case 'archive': {
      const id = requireId(request);
      const archived = request.archived ?? true;
      await updateProject(ctx, id, { archived });
      return { message: archived ? 'Project archived' : 'Project unarchived' };
    }
    case 'delete':
      throw forbidden(DELETE_REFUSED);
    default:
      throw badRequest(`operation must be one of: ${LEGACY_OPERATIONS.join(', ')}`);
  }
}
