import Type from 'typebox';
import type { RouteModule } from '../http/app.ts';
import { errorResponses } from '../http/schemas.ts';
import { buildReport } from '../services/report.ts';

/** 9999-12-31T23:59:59.999Z: beyond it instants no longer have calendar dates to bucket into. */
const MAX_INSTANT_MS = 253_402_300_799_999;
const Instant = Type.Number({ minimum: 0, maximum: MAX_INSTANT_MS, description: 'Unix milliseconds.' });

const ReportBody = Type.Object(
  {
    dateRange: Type.Optional(
      Type.Object(
        { from: Instant, to: Instant },
        { description: 'Activities whose start lies in [from, to); `to` must be greater than `from`.' },
      ),
    ),
    aggregationLevel: Type.Optional(
      Type.Enum(['activity', 'day', 'task', 'week', 'minute'], {
        description: '`minute` is the legacy name of `activity`. Range at most 90 days for activity, 365 otherwise.',
      }),
    ),
    projectIds: Type.Optional(
      Type.Array(Type.String(), { description: 'Only time of these projects; each must be visible to the caller.' }),
    ),
    teamIds: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Report every active member of these teams (the caller must be one); not with activity/minute.',
      }),
    ),
    includeCategories: Type.Optional(Type.Boolean({ description: 'Default true; false drops category fields.' })),
    includeProjects: Type.Optional(Type.Boolean({ description: 'Default true; false drops project fields.' })),
    sort: Type.Optional(
      Type.Enum(['asc', 'desc'], { description: 'By time, ties by id. Omitted: by row id ascending.' }),
    ),
  },
  { description: 'An empty body means the last 7 × 24 hours of day rows, newest first.' },
);

const ReportRow = Type.Object(
  { id: Type.String({ description: 'Stable row id, e.g. day:2026-11-20 or activity:<id>.' }) },
  { additionalProperties: true, description: 'Fields depend on aggregationLevel (see the API docs).' },
);

const ReportResponse = Type.Object({
  success: Type.Literal(true),
  rowCount: Type.Integer(),
  rows: Type.Array(ReportRow),
});

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
