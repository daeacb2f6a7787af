/**
 * POST /report (api.md, docs/api.md, "POST /report"): checks the ids the caller names, gathers the time of
 * the people the report is about, and builds the rows of the requested level. Activity rows,
 * thousands in a long range, come as the encoded response body (report-activity.ts).
 */
import type { Kysely } from 'kysely';
import { ApiError, shown } from '../../errors.ts';
import { localDateOf } from '../../lib/time.ts';
import { lookupNames, sumMinutes } from '../../storage/aggregates.ts';
import type { Storage } from '../../storage/database.ts';
import {
  PLAIN_QUERY_RANGE_MS,
  type ReportUser,
  activeMembersOf,
  dayCommentsBetween,
  readSnapshot,
} from '../../storage/reports.ts';
import type { Database } from '../../storage/schema.ts';
import type { Payload } from '../../schemas/common.ts';
import type { ReportResponse } from '../../schemas/report.ts';
import { type Viewer, visibleProjectIds } from '../projects/access.ts';
import { type EncodedReport, encodeActivityReport } from './activity.ts';
import { type ReportContext, sortRows } from './context.ts';
import { buildDayRows } from './day.ts';
import { ReportLabels } from './labels.ts';
import type { ReportRequest } from './request.ts';
import { buildTaskRows } from './task.ts';
import { buildWeekRows } from './week.ts';

export type Report = Payload<ReportResponse>;

export async function buildReport(
  storage: Storage,
  caller: ReportUser,
  viewer: Viewer,
  request: ReportRequest,
): Promise<Report | EncodedReport> {
  if (request.level === 'activity') {
    await checkNamedIds(storage.db, viewer, request);
    // Its rows come from one statement (a cursor on PostgreSQL): one snapshot already.
    return encodeActivityReport(storage, request, caller);
  }
  // Every read of the report sees the same commits: an import committing meanwhile shows in all
  // of it or in none (minutes of after with names of before, otherwise). On PostgreSQL the
  // snapshot's transaction costs round trips and puts the reads one after another, 1 ms on a
  // 1.5 ms week of one person: a short personal report, over in a few milliseconds, reads
  // side by side without it, as its activity rows do (PLAIN_QUERY_RANGE_MS).
  const short = request.teamIds === null && request.to - request.from <= PLAIN_QUERY_RANGE_MS;
  if (storage.dialect === 'postgres' && short) return buildRows(storage.db, caller, viewer, request);
  return readSnapshot(storage, (db) => buildRows(db, caller, viewer, request));
}

async function buildRows(
  db: Kysely<Database>,
  caller: ReportUser,
  viewer: Viewer,
  request: ReportRequest,
): Promise<Report> {
  await checkNamedIds(db, viewer, request);
  const people = request.teamIds ? await activeMembersOf(db, request.teamIds) : [caller];
  // Independent reads side by side: on PostgreSQL they go out on two connections at once.
  const [groups, comments] = await Promise.all([
    sumMinutes(db, {
      userIds: people.map((p) => p.id),
      timezones: new Map(people.map((p) => [p.id, p.timezone])),
      from: request.from,
      to: request.to,
      projectIds: request.projectIds ?? undefined,
    }),
    request.level === 'day' ? commentsInRange(db, people, request) : [],
  ]);
  const context: ReportContext = {
    request,
    labels: new ReportLabels(viewer, await lookupNames(db, groups)),
    people: new Map(people.map((p) => [p.id, p])),
    team: request.teamIds !== null,
  };
  const timed =
    request.level === 'day'
      ? buildDayRows(context, groups, comments)
      : request.level === 'week'
        ? buildWeekRows(context, groups)
        : buildTaskRows(context, groups);
  const rows = sortRows(timed, request.sort);
  return { rowCount: rows.length, rows };
}

/** docs/api.md, "POST /report": every named project visible to the caller, every team its own. */
async function checkNamedIds(db: Kysely<Database>, viewer: Viewer, request: ReportRequest): Promise<void> {
  if (request.teamIds) {
    const unknown = request.teamIds.find((id) => !viewer.activeTeamIds.has(id));
    if (unknown !== undefined) throw new ApiError(400, `Unknown team id: "${shown(unknown)}"`);
  }
  if (request.projectIds) {
    const visible = await visibleProjectIds(db, viewer.userId, request.projectIds);
    const unknown = request.projectIds.find((id) => !visible.has(id));
    if (unknown !== undefined) throw new ApiError(400, `Unknown project id: "${shown(unknown)}"`);
  }
}

/** Day comments on every local date the range touches for any of the people. */
async function commentsInRange(db: Kysely<Database>, people: ReportUser[], request: ReportRequest) {
  if (people.length === 0) return [];
  const firstDates = people.map((p) => localDateOf(request.from, p.timezone)).sort();
  const lastDates = people.map((p) => localDateOf(request.to, p.timezone)).sort();
  return dayCommentsBetween(
    db,
    people.map((p) => p.id),
    firstDates[0]!,
    lastDates[lastDates.length - 1]!,
  );
}
