import type { RouteModule } from '../http/types.ts';
import { LegacyProjectBody, LegacyResponse } from '../schemas/projects.ts';
import { errorResponses } from '../schemas/common.ts';
import { runLegacyOperation } from '../services/projects/legacy.ts';

const legacyProjectRoutes: RouteModule = (app, deps) => {
  app.post(
    '/project',
    {
      config: { scope: 'projects:write', plan: 'core' },
      schema: {
        summary: 'Deprecated operation-based project endpoint',
        description:
          'Kept for existing integrations; use /projects. `operation`: `list` (also an empty body; `archived: true` includes archived projects) answers `{success, projects}` with the same objects as /projects; `create` (`name` required, else 400 `name is required`) and `update` (`id` required; null or "" clears a string field) answer `{success, message, projectId}`; `archive` (`archived` defaults to true, false unarchives) answers `{success, message}`; `delete` is refused with 403 `Deleting projects is not available through the API.` Colors are limited to 100 characters before the color check. Every success is status 200.',
        tags: ['projects'],
        deprecated: true,
        body: LegacyProjectBody,
        response: { 200: LegacyResponse, ...errorResponses(404, 503) },
      },
    },
    async (request) => {
      const { user, viewer } = request.auth;
      const context = { db: deps.storage.db, user, viewer, now: deps.now(), clock: deps.now };
      return { success: true as const, ...(await runLegacyOperation(context, request.body)) };
    },
  );
};

export default legacyProjectRoutes;
