/**
 * The deprecated operation-based `/project` endpoint, kept for existing integrations. Each
 * operation maps onto the same project commands as `/projects`; only the request conventions
 * (`""` clears, `archived` on list and archive) and the success shapes are its own.
 */
import { badRequest, forbidden } from '../../errors.ts';
import { isBlank } from '../../lib/blank.ts';
import type { Payload } from '../../schemas/common.ts';
import type { LegacyProjectBody, LegacyResponse } from '../../schemas/projects.ts';
import type { ProjectInput } from './fields.ts';
import { createProject, listProjects, type ProjectContext, updateProject } from './commands.ts';

export const DELETE_REFUSED = 'Deleting projects is not available through the API.';

export type LegacyResult = Payload<LegacyResponse>;

function requireId(request: LegacyProjectBody): string {
  if (isBlank(request.id)) throw badRequest('id is required');
  return request.id!;
}

/** On this endpoint an empty string means the same as null: no value, or clear it on update. */
function emptyAsNull<T>(value: T): T | null {
  return value === '' ? null : value;
}

function toProjectInput(request: LegacyProjectBody): ProjectInput {
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

export async function runLegacyOperation(ctx: ProjectContext, request: LegacyProjectBody): Promise<LegacyResult> {
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
  }
}
