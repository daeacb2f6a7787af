/**
 * Week rows (docs/api.md, week rows): each person's local weeks, by their own week start, all
 * of whose local dates the range touches, holding tracked time in range. A week's row sums only
 * its time inside [from, to): the groups come from that range already.
 */
import { addDays, localDateOf, weekStartOf } from '../../lib/time.ts';
import type { MinuteGroup } from '../../storage/aggregates.ts';
import { type ReportContext, type TimedRow, ownerFields, personalId } from './context.ts';
import { TimeBucket, percentOfTarget } from './tally.ts';
import type { WeekRow } from '../../schemas/report.ts';

const WORKDAYS_PER_WEEK = 5;

interface Week {
  userId: string;
  start: string;
  bucket: TimeBucket;
}

export function buildWeekRows(context: ReportContext, groups: MinuteGroup[]): TimedRow<WeekRow>[] {
  const { request, labels, people } = context;
  // Touching a date is a matter of local dates, not of instants: a range from one UTC midnight
  // to the next seven days later (what the n8n node sends for "last week") touches every date of
  // the local week it covers in any timezone, though it starts or ends hours inside those days.
  const datesByZone = new Map<string, { first: string; last: string }>();
  const datesTouched = (timezone: string) => {
    let dates = datesByZone.get(timezone);
    if (!dates) {
      dates = { first: localDateOf(request.from, timezone), last: localDateOf(request.to - 1, timezone) };
      datesByZone.set(timezone, dates);
    }
    return dates;
  };
  // null: a week the range cuts, remembered so that its other groups skip the check.
  const weeks = new Map<string, Week | null>();
  const reported: Week[] = [];
  for (const group of groups) {
    const person = people.get(group.userId);
    if (!person) continue;
    const start = weekStartOf(group.date, person.week_start);
    const key = `${group.userId}\u0000${start}`;
    let week = weeks.get(key);
    if (week === undefined) {
      const { first, last } = datesTouched(person.timezone);
      week =
        start >= first && addDays(start, 6) <= last ? { userId: group.userId, start, bucket: new TimeBucket() } : null;
      weeks.set(key, week);
      if (week) reported.push(week);
    }
    week?.bucket.add(group, labels);
  }

  const rows: TimedRow<WeekRow>[] = [];
  for (const { userId, start, bucket } of reported) {
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
