/**
 * Week rows (decisions §4.5): each person's local weeks, by their own week start, that lie
 * wholly inside the range and hold tracked time. Partial weeks at the edges are dropped.
 */
import { addDays, firstInstantOfLocalDay, weekStartOf } from '../../lib/time.ts';
import type { MinuteGroup } from '../../storage/aggregates.ts';
import { type ReportContext, type TimedRow, ownerFields, personalId } from './context.ts';
import { TimeBucket, percentOfTarget } from './tally.ts';
import type { WeekRow } from './rows.ts';

const WORKDAYS_PER_WEEK = 5;

export function buildWeekRows(context: ReportContext, groups: MinuteGroup[]): TimedRow<WeekRow>[] {
  const { request, labels, people } = context;
  const weeks = new Map<string, { userId: string; start: string; bucket: TimeBucket }>();
  // Whether a week fits depends only on its person and first day; remember the answer.
  const fits = new Map<string, boolean>();
  for (const group of groups) {
    const person = people.get(group.userId);
    if (!person) continue;
    const start = weekStartOf(group.date, person.week_start);
    const key = `${group.userId}\u0000${start}`;
    let inside = fits.get(key);
    if (inside === undefined) {
      inside =
        firstInstantOfLocalDay(start, person.timezone) >= request.from &&
        firstInstantOfLocalDay(addDays(start, 7), person.timezone) <= request.to;
      fits.set(key, inside);
    }
    if (!inside) continue;
    let week = weeks.get(key);
    if (!week) {
      week = { userId: group.userId, start, bucket: new TimeBucket() };
      weeks.set(key, week);
    }
    week.bucket.add(group, labels);
  }

  const rows: TimedRow<WeekRow>[] = [];
  for (const { userId, start, bucket } of weeks.values()) {
    const person = people.get(userId);
    if (!person) continue;
    rows.push({
      time: start,
      row: {
        id: personalId(context, `week:${start}`, userId),
        week: start,
        week_end: addDays(start, 6),
        ...ownerFields(context, userId),
        duration: bucket.duration,
        duration_relative: percentOfTarget(bucket.duration, WORKDAYS_PER_WEEK * person.daily_target_minutes),
        ...(request.includeProjects ? { projects: bucket.projects.list() } : {}),
        ...(request.includeCategories ? { categories: bucket.categories.list() } : {}),
        tasks: bucket.taskList(),
      },
    });
  }
  return rows;
}
