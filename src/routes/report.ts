import type { RouteModule } from '../http/app.ts';
import { ReportBody, ReportResponse } from '../http/report-schemas.ts';
import { errorResponses } from '../http/schemas.ts';
import { buildReport } from '../services/report.ts';

const reportRoutes: RouteModule = (app, deps) => {
  app.post(
    '/report',
    {
      config: { scope: 'reports:read', plan: 'core' },
      schema: {
        summary: 'Aggregated activity rows at activity, day, task or week level',
        tags: ['report'],
        body: ReportBody,
        response: { 200: ReportResponse, ...errorResponses() },
      },
      // The schema documents the rows; the rows themselves are built to it. A schema-driven
      // serializer would have to try the union per row, many times slower on 90-day exports.
      serializerCompiler: () => (data) => JSON.stringify(data),
      // No body at all is the empty-body default, like `{}`.
      preValidation: async (request) => {
        if (request.body === undefined) request.body = {};
      },
    },
    async (request) => {
      const report = await buildReport(deps.storage.db, request.auth.user, request.body, deps.now());
      return { success: true as const, ...report };
    },
  );
};

export default reportRoutes;
