/** Day rows (docs/api.md, "POST /report"): one per person and local date with tracked time or a day comment. */
import { localDateOf } from '../../lib/time.ts';
import type { MinuteGroup } from '../../storage/aggregates.ts';
import type { DayComment } from '../../storage/reports.ts';
import { type ReportContext, type TimedRow, ownerFields, personalId } from './context.ts';
import { TimeBucket, percentOfTarget } from './tally.ts';
import type { DayRow } from '../../schemas/report.ts';

interface Day {
  userId: string;
  date: string;
  bucket: TimeBucket;
}

/** Each person's days by date, in the order they were first met. */
class Days {
  private readonly byUser = new Map<string, Map<string, Day>>();
  readonly all: Day[] = [];
  // Groups arrive mostly in (user, date) order: the last day met is usually the next one asked.
  private last: Day | null = null;

  of(userId: string, date: string): Day {
    const last = this.last;
    if (last !== null && last.date === date && last.userId === userId) return last;
    let dates = this.byUser.get(userId);
    if (!dates) {
      dates = new Map();
      this.byUser.set(userId, dates);
    }
    let day = dates.get(date);
    if (!day) {
      day = { userId, date, bucket: new TimeBucket() };
      dates.set(date, day);
      this.all.push(day);
    }
    this.last = day;
    return day;
  }
}

export function buildDayRows(
  context: ReportContext,
  groups: MinuteGroup[],
  comments: DayComment[],
): TimedRow<DayRow>[] {
  const { request, labels, people } = context;
  const days = new Days();
  for (const group of groups) days.of(group.userId, group.date).bucket.add(group, labels);

  const commentOf = new Map<string, Map<string, string>>();
  for (const c of comments) {
    let dates = commentOf.get(c.userId);
    if (!dates) {
      dates = new Map();
      commentOf.set(c.userId, dates);
    }
    dates.set(c.date, c.comment);
  }
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
        bounds = {
          after: localDateOf(request.from - 1, person.timezone),
          upTo: localDateOf(request.to - 1, person.timezone),
        };
        boundsByZone.set(person.timezone, bounds);
      }
      if (c.date > bounds.after && c.date <= bounds.upTo) days.of(c.userId, c.date);
    }
  }

  const rows: TimedRow<DayRow>[] = [];
  for (const { userId, date, bucket } of days.all) {
    const person = people.get(userId);
    if (!person) continue;
    const duration = bucket.duration;
    // Fields in the order of the contract; built one by one so every row shares one shape.
    const row = { id: personalId(context, `day:${date}`, userId), date } as DayRow;
    if (context.team) Object.assign(row, ownerFields(context, userId));
    row.duration = duration;
    row.duration_relative = percentOfTarget(duration, person.daily_target_minutes);
    if (request.includeProjects) row.projects = bucket.projects.list();
    if (request.includeCategories) row.categories = bucket.categories.list();
    row.tasks = bucket.taskList();
    row.comment = commentOf.get(userId)?.get(date) ?? '';
    rows.push({ time: date, row });
  }
  return rows;
}
