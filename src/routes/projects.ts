import type { RouteModule } from '../http/types.ts';
import { forbidden } from '../errors.ts';
import {
  ProjectCreateBody,
  ProjectIdParams,
  ProjectListQuery,
  ProjectListResponse,
  ProjectResponse,
  ProjectUpdateBody,
} from '../schemas/projects.ts';
import { errorResponses } from '../schemas/common.ts';
import { DELETE_REFUSED } from '../services/projects/legacy.ts';
import {
  createProject,
  getProject,
  listProjectPage,
  listProjects,
  type ProjectContext,
  updateProject,
} from '../services/projects/commands.ts';

const projectRoutes: RouteModule = (app, deps) => {
  const context = (request: { auth: Pick<ProjectContext, 'user' | 'viewer'> }): ProjectContext => ({
    db: deps.storage.db,
    user: request.auth.user,
    viewer: request.auth.viewer,
    now: deps.now(),
    clock: deps.now,
  });

  app.get(
    '/projects',
    {
      config: { scope: 'projects:read', plan: 'core' },
      schema: {
        summary: 'List projects',
        description:
          "Projects the key owner can see: its own personal projects and every project of a team in which it has an active membership. Active projects only unless `includeArchived=true`; sorted descending by `sort` (default `createdAt`), null values last, ties by id. `usedAt` is the start of the project's most recent activity. Without `limit` and `cursor` the answer holds every project and no `nextCursor` (as before paging existed); with either, one page of at most `limit` projects and `nextCursor`, to pass as `cursor` with the same `sort` and `includeArchived` for the next page (null on the last). Pages are cut by position (keyset), so projects created or changed between pages never make an unchanged project repeat or go missing; a project whose `updatedAt` or `usedAt` changes between pages while sorted by it may be seen twice or not at all.",
        tags: ['projects'],
        querystring: ProjectListQuery,
        response: { 200: ProjectListResponse, ...errorResponses() },
      },
    },
    async (request) => {
      const { sort = 'createdAt', includeArchived = false, limit, cursor } = request.query;
      if (limit === undefined && cursor === undefined)
        return { success: true as const, projects: await listProjects(context(request), { sort, includeArchived }) };
      const page = await listProjectPage(context(request), { sort, includeArchived, limit, cursor });
      return { success: true as const, ...page };
    },
  );

  app.get(
    '/projects/:id',
    {
      config: { scope: 'projects:read', plan: 'core' },
      schema: {
        summary: 'Read one project',
        description: "Any id outside the caller's visibility, existing or not, is 404 `Project not found`.",
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
      schema: {
        summary: 'Create a project',
        description:
          'All fields optional; an empty body creates a personal project named `New Project <YYYY-MM-DD>` (the caller\'s local date). Errors: `Invalid color value`; `Team not found: "<value>"`; `Portfolio not found: "<value>"`; a portfolio of another scope; `contributorIds must be null or an array of user ids, handles, or email addresses`; `No user matches "<entry>"; use a user id, handle, or email address`; `Contributor <userId> is not an active member of the team`; `Contributors can only be set on team projects`.',
        tags: ['projects'],
        body: ProjectCreateBody,
        response: { 201: ProjectResponse, ...errorResponses(503) },
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
      schema: {
        summary: 'Update or archive a project',
        description:
          'Omitted fields stay unchanged; `team` and `portfolio` clear with null or ""; `contributorIds` replaces the list (null = whole team, [] = nobody); `archived` true/false archives/unarchives; `confidential` is refused (`confidential cannot be changed through the API`). Changing the team without `contributorIds`, or moving to personal scope, resets `contributorIds` to null. A body that changes nothing returns the project as it is.',
        tags: ['projects'],
        params: ProjectIdParams,
        body: ProjectUpdateBody,
        response: { 200: ProjectResponse, ...errorResponses(404, 503) },
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
        description:
          'Needs `projects:write`, then always 403 `Deleting projects is not available through the API.`, whether or not the id exists. Archive the project instead.',
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
