/**
 * The periods summaries cover: a local day, a week by the user's week start, a calendar month,
 * quarter or year. Periods are closed ranges of local dates (`start` and `end` inclusive).
 */
import { addDays, daysInMonth, weekStartOf } from '../../lib/time.ts';

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

/** Year and month 1–12 of a month counted from `year`'s January, stepping across year ends. */
function normalMonth(year: number, month: number): [number, number] {
  return [year + Math.floor((month - 1) / 12), ((((month - 1) % 12) + 12) % 12) + 1];
}

function dateOf(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function monthStart(year: number, month: number): string {
  const [y, m] = normalMonth(year, month);
  return dateOf(y, m, 1);
}

/**
 * The last date of a month, counted within its own year: stepping to the next month's first
 * day and back would leave the four-digit years after 9999-12.
 */
function monthEnd(year: number, month: number): string {
  const [y, m] = normalMonth(year, month);
  return dateOf(y, m, daysInMonth(y, m));
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
      return { level, start: monthStart(year, month), end: monthEnd(year, month) };
    case 'quarter': {
      const first = month - ((month - 1) % 3);
      return { level, start: monthStart(year, first), end: monthEnd(year, first + 2) };
    }
    case 'year':
      return { level, start: monthStart(year, 1), end: monthEnd(year, 12) };
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
