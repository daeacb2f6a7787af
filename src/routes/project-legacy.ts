import type { RouteModule } from '../http/app.ts';
import { emptyBodyAsObject } from '../http/empty-body.ts';
import { LegacyProjectBody, LegacyResponse } from '../http/project-schemas.ts';
import { errorResponses } from '../http/schemas.ts';
import { runLegacyOperation } from '../services/project-legacy.ts';

const legacyProjectRoutes: RouteModule = (app, deps) => {
  app.post(
    '/project',
    {
      config: { scope: 'projects:write', plan: 'core' },
      preValidation: emptyBodyAsObject,
      schema: {
        summary: 'Deprecated operation-based project endpoint',
        description:
          'Kept for existing integrations; use /projects. `operation` is list (default), create, update, archive or delete (refused).',
        tags: ['projects'],
        deprecated: true,
        body: LegacyProjectBody,
        response: { 200: LegacyResponse, ...errorResponses(404) },
      },
    },
    async (request) => {
      const context = { db: deps.storage.db, user: request.auth.user, now: deps.now() };
      return { success: true as const, ...(await runLegacyOperation(context, request.body)) };
    },
  );
};

export default legacyProjectRoutes;
