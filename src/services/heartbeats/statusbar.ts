/**
 * GET …/users/current/statusbar/today (decisions §8.8): the caller's local today as WakaTime's
 * status bar reads it, all tracked time whatever its source.
 */
import { addDays, firstInstantOfLocalDay, localDateOf, toIso } from '../../lib/time.ts';
import type { UserRow } from '../../storage/accounts.ts';
import type { Storage } from '../../storage/database.ts';
import { minutesOfDay } from '../../storage/heartbeats.ts';
import type { StatusBar, StatusBarTotal } from '../../schemas/heartbeats.ts';

/** A total in WakaTime's shape: `2:17` digital, `2 hrs 17 mins` text, `2.28` decimal hours. */
function total(seconds: number): StatusBarTotal {
  const whole = Math.floor(seconds / 60);
  const hours = Math.floor(whole / 60);
  const minutes = whole % 60;
  const parts = [
    hours > 0 ? `${hours} hr${hours === 1 ? '' : 's'}` : null,
    `${minutes} min${minutes === 1 ? '' : 's'}`,
  ];
  return {
    total_seconds: seconds,
    hours,
    minutes,
    digital: `${hours}:${String(minutes).padStart(2, '0')}`,
    text: parts.filter((p) => p !== null).join(' '),
    decimal: (seconds / 3600).toFixed(2),
  };
}

/** Named totals, largest first (ties by name), with each one's share of the day. */
function named(byName: Map<string, number>, all: number) {
  return [...byName]
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, seconds]) => ({
      name,
      ...total(seconds),
      percent: all > 0 ? Math.round((seconds / all) * 10_000) / 100 : 0,
    }));
}

export async function statusBarToday(storage: Storage, user: UserRow, now: number): Promise<StatusBar> {
  const date = localDateOf(now, user.timezone);
  const rows = await minutesOfDay(storage.db, user.id, date);
  const projects = new Map<string, number>();
  const categories = new Map<string, number>();
  let all = 0;
  for (const r of rows) {
    const seconds = r.minutes * 60;
    all += seconds;
    if (r.project !== null) projects.set(r.project, (projects.get(r.project) ?? 0) + seconds);
    const category = r.category ?? 'Uncategorized';
    categories.set(category, (categories.get(category) ?? 0) + seconds);
  }
  return {
    grand_total: total(all),
    projects: named(projects, all),
    categories: named(categories, all),
    range: {
      date,
      start: toIso(firstInstantOfLocalDay(date, user.timezone))!,
      end: toIso(firstInstantOfLocalDay(addDays(date, 1), user.timezone) - 1000)!,
      timezone: user.timezone,
    },
  };
}
