/**
 * Composes the structured summary of one user's period from the shared aggregation
 * (storage/aggregates.ts), the way reports do: minutes per project, category and task for the
 * local days of the period.
 */
import type { Kysely } from 'kysely';
import { addDays, firstInstantOfLocalDay } from '../../lib/time.ts';
import type { UserRow } from '../../storage/accounts.ts';
import { type MinuteGroup, lookupNames, sumMinutes } from '../../storage/aggregates.ts';
import { dayCommentsBetween } from '../../storage/reports.ts';
import type { Database } from '../../storage/schema.ts';
import { cleanMinutes } from '../reports/tally.ts';
import { type Period, previousPeriod } from './periods.ts';
import type { Summary, SummaryCategory, SummaryEntry, SummaryTask } from './summary.ts';

type SummaryUser = Pick<UserRow, 'id' | 'timezone' | 'week_start'>;

function minutesOf(
  user: SummaryUser,
  period: Pick<Period, 'start' | 'end'>,
  db: Kysely<Database>,
): Promise<MinuteGroup[]> {
  return sumMinutes(db, {
    userIds: [user.id],
    timezones: new Map([[user.id, user.timezone]]),
    from: firstInstantOfLocalDay(period.start, user.timezone),
    to: firstInstantOfLocalDay(addDays(period.end, 1), user.timezone),
  });
}

/** Sums of fractional minutes without their binary noise, as reports show them (same on both databases). */
const total = (groups: MinuteGroup[]) => cleanMinutes(groups.reduce((sum, g) => sum + g.minutes, 0));

/** The entries with their minutes cleaned, longest first, then by name. */
function ranked<T extends { minutes: number }>(entries: Iterable<T>, name: (item: T) => string): T[] {
  const list = [...entries];
  for (const entry of list) entry.minutes = cleanMinutes(entry.minutes);
  return list.sort(byMinutesThenName(name));
}

function byMinutesThenName<T extends { minutes: number }>(name: (item: T) => string) {
  return (a: T, b: T) => b.minutes - a.minutes || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);
}

/** Adds `minutes` to the entry under `key`, creating it with `create` the first time. */
function accumulate<T extends { minutes: number }>(
  map: Map<string, T>,
  key: string,
  minutes: number,
  create: () => T,
): void {
  const entry = map.get(key) ?? create();
  entry.minutes += minutes;
  map.set(key, entry);
}

/** The summary of `period`, or null when the period has no tracked time. */
export async function composeSummary(db: Kysely<Database>, user: SummaryUser, period: Period): Promise<Summary | null> {
  const groups = await minutesOf(user, period, db);
  const totalMinutes = total(groups);
  if (totalMinutes <= 0) return null;

  const previous = previousPeriod(period, user.week_start);
  const names = await lookupNames(db, groups);
  const projects = new Map<string, SummaryEntry>();
  const categories = new Map<string, SummaryCategory>();
  // A task recurring day after day is one line of a longer period, so tasks merge by title
  // and project rather than by id.
  const tasks = new Map<string, SummaryTask>();
  const days = new Set<string>();

  for (const g of groups) {
    if (g.minutes > 0) days.add(g.date);
    const project = g.projectId ? (names.projects.get(g.projectId)?.name ?? null) : null;
    if (g.projectId && project !== null) {
      accumulate(projects, g.projectId, g.minutes, () => ({ name: project, minutes: 0 }));
    }
    const category = g.categoryId ? names.categories.get(g.categoryId) : undefined;
    if (category) {
      accumulate(categories, category.id, g.minutes, () => ({
        name: category.name,
        emoji: category.emoji,
        minutes: 0,
      }));
    }
    const task = g.taskId ? names.tasks.get(g.taskId) : undefined;
    if (task) {
      accumulate(tasks, JSON.stringify([task.title, project]), g.minutes, () => ({
        title: task.title,
        project,
        minutes: 0,
      }));
    }
  }

  return {
    level: period.level,
    start: period.start,
    end: period.end,
    timezone: user.timezone,
    totalMinutes,
    trackedDays: days.size,
    previous: { start: previous.start, end: previous.end, totalMinutes: total(await minutesOf(user, previous, db)) },
    projects: ranked(projects.values(), (p) => p.name),
    categories: ranked(categories.values(), (c) => c.name),
    tasks: ranked(tasks.values(), (t) => t.title),
    comments: (await dayCommentsBetween(db, [user.id], period.start, period.end)).map(({ date, comment }) => ({
      date,
      comment,
    })),
  };
}
