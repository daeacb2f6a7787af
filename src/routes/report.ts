import { Readable } from 'node:stream';
import type { RouteModule } from '../http/types.ts';
import { ReportBody, ReportResponse } from '../schemas/report.ts';
import { errorResponses } from '../schemas/common.ts';
import { buildReport } from '../services/reports/report.ts';
import { EncodedReport } from '../services/reports/activity.ts';
import { parseReportRequest } from '../services/reports/request.ts';

const description = [
  'Rows cover activities whose start lies in [dateRange.from, dateRange.to) (Unix ms). A missing or empty body means',
  'the last 7 × 24 hours, aggregationLevel day, sort desc; a non-empty body needs dateRange and aggregationLevel.',
  'Levels: activity (legacy alias minute) spans at most 90 days; day, task and week at most 365 (days of 24 hours).',
  'Days and weeks are local to the key owner, in team reports to each member (timezone, weekStart); a week is',
  'reported when the range touches every one of its local dates (first day on or after the local date of from,',
  'last day on or before that of to − 1 ms), summing its time inside the range. Ids: `day:<date>`, `week:<first day>`,',
  '`task:<taskId>`, `activity:<id>` or `minute:<id>`; in team reports day and week ids end in `:<userId>`.',
  'duration_relative is 100 × duration ÷',
  'dailyTargetMinutes (weeks: 5 × dailyTargetMinutes), rounded half up to one decimal; projects, categories and',
  'tasks lists are sorted by minutes descending, then name. sort asc|desc orders by date, week start or timestamp,',
  'ties by id ascending; without sort, rows are in plain string order of id. Empty projectIds or teamIds arrays',
  'mean no filter. teamIds (not at activity level) report every active member of those teams; in another',
  "member's rows, private projects and projects the caller cannot see read Other, tasks that are not visible or",
  'belong to a confidential project read Hidden task (ids null, minutes kept); at task level those become one row',
  'per member and date, `task:hidden:<date>:<userId>`. 400 messages: `dateRange is required`,',
  '`aggregationLevel is required`, `dateRange.to must be greater than dateRange.from`,',
  '`dateRange must span at most <N> days for aggregationLevel "<level>"`,',
  '`teamIds cannot be used with aggregationLevel "<level>"`, `Unknown team id: "<id>"`,',
  '`Unknown project id: "<id>"`, and schema messages naming the field (`sort must be one of: asc, desc`).',
].join(' ');

const reportRoutes: RouteModule = (app, deps) => {
  app.post(
    '/report',
    {
      config: { scope: 'reports:read', plan: 'core' },
      schema: {
        summary: 'Aggregated activity rows at activity, day, task or week level',
        description,
        tags: ['report'],
        body: ReportBody,
        response: { 200: ReportResponse, ...errorResponses() },
      },
      // The schema documents the rows; the rows themselves are built to it. A schema-driven
      // serializer would have to try the union per row, many times slower on 90-day exports.
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async (request, reply) => {
      const job = { caller: request.auth.user, viewer: request.auth.viewer, body: request.body, now: deps.now() };
      // Activity rows, and large reports from the workers, come as the finished body in chunks
      // (the type provider knows only the object form of the schema); the headers are those
      // Fastify gives every JSON answer.
      const sendChunks = (chunks: Buffer[]) => {
        reply.header('content-type', 'application/json; charset=utf-8').header(
          'content-length',
          chunks.reduce((sum, c) => sum + c.byteLength, 0),
        );
        // One chunk (a report from the pool) is sent as it is; more are streamed.
        const body = chunks.length === 1 ? chunks[0]! : Readable.from(releasing(chunks), { objectMode: false });
        return reply.send(body as unknown as ReportResponse);
      };
      const parsed = parseReportRequest(job.body, job.now);
      // On a read worker where services/read-workers.ts places it, else here.
      const built = deps.readers?.report(job, parsed);
      if (built) return sendChunks(await built);
      const report = await buildReport(deps.storage, job.caller, job.viewer, parsed);
      if (report instanceof EncodedReport) return sendChunks(report.chunks);
      return { success: true as const, ...report };
    },
  );
};

/** The chunks in order, each let go once handed on, so a slow reader holds only the rest. */
function* releasing(chunks: Buffer[]): Generator<Buffer> {
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i]!;
    chunks[i] = EMPTY;
    yield chunk;
  }
}

const EMPTY = Buffer.alloc(0);

export default reportRoutes;
