/** Day rows (decisions §4.2): one per person and local date with tracked time or a day comment. */
import { localDateOf } from '../lib/time.ts';
import type { MinuteGroup } from '../storage/aggregates.ts';
import type { DayComment } from '../storage/reports.ts';
import { type ReportContext, type TimedRow, ownerFields, personalId } from './report-context.ts';
import { TimeBucket, percentOfTarget } from './report-tally.ts';
import type { DayRow } from './report-rows.ts';

const dayKey = (userId: string, date: string) => `${userId}\u0000${date}`;

export function buildDayRows(context: ReportContext, groups: MinuteGroup[], comments: DayComment[]): TimedRow<DayRow>[] {
  const { request, labels, people } = context;
  const days = new Map<string, { userId: string; date: string; bucket: TimeBucket }>();
  const dayOf = (userId: string, date: string) => {
    const key = dayKey(userId, date);
    let day = days.get(key);
    if (!day) {
      day = { userId, date, bucket: new TimeBucket() };
      days.set(key, day);
    }
    return day;
  };
  for (const group of groups) dayOf(group.userId, group.date).bucket.add(group, labels);

  const commentOf = new Map(comments.map((c) => [dayKey(c.userId, c.date), c.comment]));
  // A comment alone makes a row only when the whole local day starts inside the range; under
  // a project filter a comment belongs to no project, so it adds no row.
  if (request.projectIds === null) {
    // Local midnight of a date lies in [from, to) exactly when the date comes after the day of
    // the instant before `from` and is at most the day of the instant before `to`.
    const boundsByZone = new Map<string, { after: string; upTo: string }>();
    for (const c of comments) {
      const person = people.get(c.userId);
      if (!person) continue;
      let bounds = boundsByZone.get(person.timezone);
      if (!bounds) {
        bounds = { after: localDateOf(request.from - 1, person.timezone), upTo: localDateOf(request.to - 1, person.timezone) };
        boundsByZone.set(person.timezone, bounds);
      }
      if (c.date > bounds.after && c.date <= bounds.upTo) dayOf(c.userId, c.date);
    }
  }

  const rows: TimedRow<DayRow>[] = [];
  for (const { userId, date, bucket } of days.values()) {
    const person = people.get(userId);
    if (!person) continue;
    rows.push({
      time: date,
      row: {
        id: personalId(context, `day:${date}`, userId),
        date,
        ...ownerFields(context, userId),
        duration: bucket.duration,
        duration_relative: percentOfTarget(bucket.duration, person.daily_target_minutes),
        ...(request.includeProjects ? { projects: bucket.projects.list() } : {}),
        ...(request.includeCategories ? { categories: bucket.categories.list() } : {}),
        tasks: bucket.taskList(),
        comment: commentOf.get(dayKey(userId, date)) ?? '',
      },
    });
  }
  return rows;
}
