import type { RouteModule } from '../http/app.ts';
import { emptyBodyAsObject } from '../http/empty-body.ts';
import { forbidden } from '../http/errors.ts';
import {
  ProjectCreateBody,
  ProjectIdParams,
  ProjectListQuery,
  ProjectListResponse,
  ProjectResponse,
  ProjectUpdateBody,
} from '../http/project-schemas.ts';
import { errorResponses } from '../http/schemas.ts';
import { DELETE_REFUSED } from '../services/project-legacy.ts';
import { createProject, getProject, listProjects, type ProjectContext, updateProject } from '../services/projects.ts';

const projectRoutes: RouteModule = (app, deps) => {
  const context = (request: { auth: { user: ProjectContext['user'] } }): ProjectContext => ({
    db: deps.storage.db,
    user: request.auth.user,
    now: deps.now(),
  });

  app.get(
    '/projects',
    {
      config: { scope: 'projects:read', plan: 'core' },
      schema: {
        summary: 'List projects',
        description: 'Active projects the key owner can see, newest first; `includeArchived=true` adds archived ones.',
        tags: ['projects'],
        querystring: ProjectListQuery,
        response: { 200: ProjectListResponse, ...errorResponses() },
      },
    },
    async (request) => {
      const { sort = 'createdAt', includeArchived = false } = request.query;
      return { success: true as const, projects: await listProjects(context(request), { sort, includeArchived }) };
    },
  );

  app.get(
    '/projects/:id',
    {
      config: { scope: 'projects:read', plan: 'core' },
      schema: {
        summary: 'Read one project',
        tags: ['projects'],
        params: ProjectIdParams,
        response: { 200: ProjectResponse, ...errorResponses(404) },
      },
    },
    async (request) => ({ success: true as const, project: await getProject(context(request), request.params.id) }),
  );

  app.post(
    '/projects',
    {
      config: { scope: 'projects:write', plan: 'core' },
      preValidation: emptyBodyAsObject,
      schema: {
        summary: 'Create a project',
        tags: ['projects'],
        body: ProjectCreateBody,
        response: { 201: ProjectResponse, ...errorResponses() },
      },
    },
    async (request, reply) => {
      const project = await createProject(context(request), request.body);
      return reply.code(201).send({ success: true as const, project });
    },
  );

  app.post(
    '/projects/:id',
    {
      config: { scope: 'projects:write', plan: 'core' },
      preValidation: emptyBodyAsObject,
      schema: {
        summary: 'Update or archive a project',
        description: 'Omitted fields stay unchanged; `team`/`portfolio` clear with null or "". An empty body returns the project.',
        tags: ['projects'],
        params: ProjectIdParams,
        body: ProjectUpdateBody,
        response: { 200: ProjectResponse, ...errorResponses(404) },
      },
    },
    async (request) => ({
      success: true as const,
      project: await updateProject(context(request), request.params.id, request.body),
    }),
  );

  app.delete(
    '/projects/:id',
    {
      config: { scope: 'projects:write', plan: 'core' },
      schema: {
        summary: 'Delete a project (always refused)',
        description: 'Always 403; archive the project instead.',
        tags: ['projects'],
        params: ProjectIdParams,
        response: errorResponses(),
      },
    },
    async () => {
      throw forbidden(DELETE_REFUSED);
    },
  );
};

export default projectRoutes;
