/**
 * The periods summaries cover: a local day, a week by the user's week start, a calendar month,
 * quarter or year. Periods are closed ranges of local dates (`start` and `end` inclusive).
 */
import { addDays, weekStartOf } from '../../lib/time.ts';

export const LEVELS = ['day', 'week', 'month', 'quarter', 'year'] as const;
export type Level = (typeof LEVELS)[number];

export type WeekStart = 'monday' | 'sunday';

export interface Period {
  level: Level;
  /** First local date of the period. */
  start: string;
  /** Last local date of the period. */
  end: string;
}

export function isLevel(value: string): value is Level {
  return (LEVELS as readonly string[]).includes(value);
}

function monthStart(year: number, month: number): string {
  // Normalise months outside 1–12 so callers can step across year boundaries.
  const y = year + Math.floor((month - 1) / 12);
  const m = ((((month - 1) % 12) + 12) % 12) + 1;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-01`;
}

/** The period of `level` that contains the local date `date`. */
export function periodOf(level: Level, date: string, weekStart: WeekStart): Period {
  const year = Number(date.slice(0, 4));
  const month = Number(date.slice(5, 7));
  switch (level) {
    case 'day':
      return { level, start: date, end: date };
    case 'week': {
      const start = weekStartOf(date, weekStart);
      return { level, start, end: addDays(start, 6) };
    }
    case 'month':
      return { level, start: monthStart(year, month), end: addDays(monthStart(year, month + 1), -1) };
    case 'quarter': {
      const first = month - ((month - 1) % 3);
      return { level, start: monthStart(year, first), end: addDays(monthStart(year, first + 3), -1) };
    }
    case 'year':
      return { level, start: monthStart(year, 1), end: addDays(monthStart(year + 1, 1), -1) };
  }
}

/** The period of the same level just before `period`. */
export function previousPeriod(period: Period, weekStart: WeekStart): Period {
  return periodOf(period.level, addDays(period.start, -1), weekStart);
}

/** The period of the same level just after `period`. */
export function nextPeriod(period: Period, weekStart: WeekStart): Period {
  return periodOf(period.level, addDays(period.end, 1), weekStart);
}

/** 1–4 for a date's calendar quarter. */
export function quarterOf(date: string): number {
  return Math.floor((Number(date.slice(5, 7)) - 1) / 3) + 1;
}
