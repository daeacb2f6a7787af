/**
 * Activity rows (decisions §4.3): one per activity of the caller, `activity:<id>`, or
 * `minute:<id>` when asked for by the legacy level name. Never team rows.
 *
 * A 90-day export holds thousands of rows: each is built as one object straight from the
 * stored activity, and sorted in place, so a request keeps no second copy of its rows.
 */
import { localTimeFormatter, offsetAt } from '../lib/time.ts';
import type { ActivityDetail } from '../storage/reports.ts';
import type { ReportRequest } from './report-request.ts';
import type { ActivityRow } from './report-rows.ts';
import { compareText } from './report-tally.ts';

const DAY_MS = 86_400_000;

export function buildActivityRows(request: ReportRequest, timezone: string, activities: ActivityDetail[]): ActivityRow[] {
  const localTime = localClock(timezone);
  const prefix = `${request.activityIdPrefix}:`;
  const rows: ActivityRow[] = new Array(activities.length);
  for (let i = 0; i < activities.length; i++) {
    const a = activities[i]!;
    const row: ActivityRow = {
      id: prefix + a.id,
      timestamp: a.start,
      timestampIso: new Date(a.start).toISOString(),
      time: localTime(a.start),
      duration: a.durationMinutes,
      headline: a.headline,
      description: a.description,
      task: a.taskTitle,
      task_id: a.taskId,
    };
    if (request.includeProjects) {
      row.project = a.projectName;
      row.project_id = a.projectId;
    }
    if (request.includeCategories) {
      row.category = a.categoryName;
      row.category_emoji = a.categoryEmoji;
    }
    rows[i] = row;
  }
  return sortActivityRows(rows, request.sort);
}

/** decisions §4.9, as sortRows in report-context.ts, on the rows themselves. */
function sortActivityRows(rows: ActivityRow[], sort: ReportRequest['sort']): ActivityRow[] {
  if (sort === null) return rows.sort((a, b) => compareText(a.id, b.id));
  const direction = sort === 'asc' ? 1 : -1;
  return rows.sort((a, b) => direction * (a.timestamp - b.timestamp) || compareText(a.id, b.id));
}

/**
 * Local `HH:MM` for instants that come mostly in time order. Within a local day without an
 * offset change the time is the distance from its midnight, so a zone is consulted once per
 * day rather than per activity; a day with a change is left to the Intl formatter.
 */
function localClock(timezone: string): (ms: number) => string {
  const format = localTimeFormatter(timezone);
  let dayStart = 0;
  let dayEnd = -1;
  return (ms) => {
    if (ms < dayStart || ms >= dayEnd) {
      const offset = offsetAt(ms, timezone);
      const midnight = ms - ((((ms + offset) % DAY_MS) + DAY_MS) % DAY_MS);
      if (offsetAt(midnight, timezone) !== offset || offsetAt(midnight + DAY_MS - 1, timezone) !== offset) return format(ms);
      dayStart = midnight;
      dayEnd = midnight + DAY_MS;
    }
    const minutes = Math.floor((ms - dayStart) / 60_000);
    const hours = Math.floor(minutes / 60);
    const rest = minutes % 60;
    return `${hours < 10 ? '0' : ''}${hours}:${rest < 10 ? '0' : ''}${rest}`;
  };
}
