/**
 * Activity rows (decisions §4.3): one per activity of the caller, `activity:<id>`, or
 * `minute:<id>` when asked for by the legacy level name. Never team rows.
 */
import { localTimeFormatter } from '../lib/time.ts';
import type { ActivityDetail } from '../storage/reports.ts';
import type { TimedRow } from './report-context.ts';
import type { ReportRequest } from './report-request.ts';
import type { ActivityRow } from './report-rows.ts';

export function buildActivityRows(request: ReportRequest, timezone: string, activities: ActivityDetail[]): TimedRow<ActivityRow>[] {
  const localTime = localTimeFormatter(timezone);
  return activities.map((a) => ({
    time: a.start,
    row: {
      id: `${request.activityIdPrefix}:${a.id}`,
      timestamp: a.start,
      timestampIso: new Date(a.start).toISOString(),
      time: localTime(a.start),
      duration: a.durationMinutes,
      headline: a.headline,
      description: a.description,
      task: a.taskTitle,
      task_id: a.taskId,
      ...(request.includeProjects ? { project: a.projectName, project_id: a.projectId } : {}),
      ...(request.includeCategories ? { category: a.categoryName, category_emoji: a.categoryEmoji } : {}),
    },
  }));
}
