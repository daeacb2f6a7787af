/**
 * The structured summary stored for each (user, level, period), and the wording every format
 * shares: the subject line, period labels and the comparison with the previous period.
 */
import { daysBetween } from '../../lib/time.ts';
import { formatChange, formatDuration } from './durations.ts';
import { type Level, type Period, quarterOf } from './periods.ts';

export interface SummaryEntry {
  name: string;
  minutes: number;
}

export interface SummaryCategory extends SummaryEntry {
  emoji: string | null;
}

export interface SummaryTask {
  title: string;
  /** The project the task's time was logged to, if any. */
  project: string | null;
  minutes: number;
}

interface SummaryComment {
  date: string;
  comment: string;
}

export interface Summary {
  level: Level;
  start: string;
  end: string;
  timezone: string;
  totalMinutes: number;
  /** Local days of the period with tracked time. */
  trackedDays: number;
  previous: { start: string; end: string; totalMinutes: number };
  /** Minutes descending, then name; time without a project is left out. */
  projects: SummaryEntry[];
  /** Minutes descending, then name; time without a category is left out. */
  categories: SummaryCategory[];
  /** Longest first; time without a task is left out. */
  tasks: SummaryTask[];
  comments: SummaryComment[];
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

const ADJECTIVE: Record<Level, string> = {
  day: 'daily',
  week: 'weekly',
  month: 'monthly',
  quarter: 'quarterly',
  year: 'yearly',
};

/** `Nov 20` */
export function shortDate(date: string): string {
  return `${MONTHS[Number(date.slice(5, 7)) - 1]!.slice(0, 3)} ${Number(date.slice(8, 10))}`;
}

/** `Nov 20`, `Nov 16 – Nov 22`, `November 2026`, `Q4 2026`, `2026`. */
export function periodLabel(period: Pick<Period, 'level' | 'start' | 'end'>): string {
  const year = period.start.slice(0, 4);
  switch (period.level) {
    case 'day':
      return shortDate(period.start);
    case 'week':
      return `${shortDate(period.start)} – ${shortDate(period.end)}`;
    case 'month':
      return `${MONTHS[Number(period.start.slice(5, 7)) - 1]} ${year}`;
    case 'quarter':
      return `Q${quarterOf(period.start)} ${year}`;
    case 'year':
      return year;
  }
}

/** The first word of the name the user is shown by (`/user`). */
export function firstNameOf(displayName: string): string {
  return displayName.trim().split(/\s+/)[0] || displayName;
}

/** `Alice's daily summary: Nov 20` (docs/api.md, "GET / POST /message"). */
export function subjectOf(summary: Pick<Summary, 'level' | 'start' | 'end'>, firstName: string): string {
  return `${firstName}'s ${ADJECTIVE[summary.level]} summary: ${periodLabel(summary)}`;
}

/** `+35 min compared with the previous day (7 h)`. */
export function changeLine(summary: Summary): string {
  const before = summary.previous.totalMinutes;
  const noun = `the previous ${summary.level}`;
  if (before <= 0) return `No tracked time in ${noun}`;
  // The change between the two durations as shown, so the line never contradicts them.
  const shown = (minutes: number) => Math.round(minutes);
  return `${formatChange(shown(summary.totalMinutes) - shown(before))} compared with ${noun} (${formatDuration(before)})`;
}

/** `7 h 35 min tracked` plus, beyond a day, on how many of its days. */
export function totalLine(summary: Summary): string {
  const total = `${formatDuration(summary.totalMinutes)} tracked`;
  if (summary.level === 'day') return total;
  const days = daysBetween(summary.start, summary.end) + 1;
  return `${total} on ${summary.trackedDays} of ${days} days`;
}

export function categoryName(category: SummaryCategory): string {
  return category.emoji ? `${category.emoji} ${category.name}` : category.name;
}

export function taskName(task: SummaryTask): string {
  return task.project ? `${task.title} (${task.project})` : task.title;
}

export function moreLine(count: number): string {
  return `and ${count} more`;
}
