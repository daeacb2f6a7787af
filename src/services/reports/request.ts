/**
 * The POST /report body turned into one normalized request: defaults of the empty body,
 * the `minute` alias, and every rule that needs no database (docs/api.md, "POST /report").
 * Field types are checked earlier by the route's schema; these are the rules a schema cannot
 * say, with messages that name the field.
 */
import { ApiError } from '../../errors.ts';
import { DAY_MS } from '../../lib/time.ts';
import type { ReportBody } from '../../schemas/report.ts';

/** Longest range per level, in days of 24 hours. */
const RANGE_LIMIT_DAYS = { activity: 90, day: 365, task: 365, week: 365 } as const;

type ReportLevel = keyof typeof RANGE_LIMIT_DAYS;

export interface ReportRequest {
  /** Unix ms, inclusive. */
  from: number;
  /** Unix ms, exclusive. */
  to: number;
  level: ReportLevel;
  /** Prefix of activity row ids: the level name as the caller spelled it. */
  activityIdPrefix: 'activity' | 'minute';
  /** Absent or empty in the body: no project filter. */
  projectIds: string[] | null;
  /** Absent or empty in the body: the caller's own report. */
  teamIds: string[] | null;
  includeProjects: boolean;
  includeCategories: boolean;
  /** Absent: ascending by row id. */
  sort: 'asc' | 'desc' | null;
}

const unique = (ids: string[] | undefined): string[] | null => (ids && ids.length > 0 ? [...new Set(ids)] : null);

/** A missing or `{}` body is the last seven days of day rows, newest first. */
export function parseReportRequest(body: ReportBody | undefined | null, now: number): ReportRequest {
  if (!body || Object.keys(body).length === 0) {
    return {
      from: now - 7 * DAY_MS,
      to: now,
      level: 'day',
      activityIdPrefix: 'activity',
      projectIds: null,
      teamIds: null,
      includeProjects: true,
      includeCategories: true,
      sort: 'desc',
    };
  }
  const { dateRange, aggregationLevel } = body;
  if (!dateRange) throw new ApiError(400, 'dateRange is required');
  if (!aggregationLevel) throw new ApiError(400, 'aggregationLevel is required');
  if (dateRange.to <= dateRange.from) {
    throw new ApiError(400, 'dateRange.to must be greater than dateRange.from');
  }
  const level: ReportLevel = aggregationLevel === 'minute' ? 'activity' : aggregationLevel;
  const limit = RANGE_LIMIT_DAYS[level];
  if (dateRange.to - dateRange.from > limit * DAY_MS) {
    throw new ApiError(400, `dateRange must span at most ${limit} days for aggregationLevel "${aggregationLevel}"`);
  }
  const teamIds = unique(body.teamIds);
  if (teamIds && level === 'activity') {
    throw new ApiError(400, `teamIds cannot be used with aggregationLevel "${aggregationLevel}"`);
  }
  return {
    // Instants are whole milliseconds: a start lies in [from, to) exactly when it lies in
    // [⌈from⌉, ⌈to⌉), and the databases compare integers (PostgreSQL refuses 0.5 as a bigint).
    from: Math.ceil(dateRange.from),
    to: Math.ceil(dateRange.to),
    level,
    activityIdPrefix: aggregationLevel === 'minute' ? 'minute' : 'activity',
    projectIds: unique(body.projectIds),
    teamIds,
    includeProjects: body.includeProjects ?? true,
    includeCategories: body.includeCategories ?? true,
    sort: body.sort ?? null,
  };
}
