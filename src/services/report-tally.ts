/**
 * Adding up minutes for report rows: the `{name, minutes}` lists of day, week and task rows
 * (decisions §4.2: minutes descending, then name) and the exact `duration_relative`.
 */
import type { MinuteGroup } from '../storage/aggregates.ts';
import type { Label, ReportLabels } from './report-labels.ts';

export interface NamedMinutes {
  name: string;
  minutes: number;
}

/**
 * Sums of fractional minutes pick up binary noise (0.1 + 0.2); six decimals keep every real
 * value and drop the noise.
 */
export function cleanMinutes(minutes: number): number {
  return Math.round(minutes * 1e6) / 1e6;
}

/**
 * 100 × minutes ÷ target rounded half up to one decimal, computed on integers: a float
 * product such as 12.35 is stored as 12.3499… and would round the wrong way.
 */
export function percentOfTarget(minutes: number, targetMinutes: number): number {
  const micro = BigInt(Math.round(minutes * 1e6));
  const numerator = 1000n * micro;
  const denominator = BigInt(targetMinutes) * 1_000_000n;
  const tenths = (2n * numerator + denominator) / (2n * denominator);
  return Number(tenths) / 10;
}

const byMinutesThenName = (a: NamedMinutes & { key: string }, b: NamedMinutes & { key: string }) =>
  b.minutes - a.minutes || compareText(a.name, b.name) || compareText(a.key, b.key);

/** Plain code-unit order, the same on every machine and locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Minutes per label; labels with the same key (the same id, or the same masked name) merge. */
export class Tally {
  private readonly entries = new Map<string, NamedMinutes & { key: string }>();

  add(label: Label | null, minutes: number): void {
    if (!label) return;
    const entry = this.entries.get(label.key);
    if (entry) entry.minutes += minutes;
    else this.entries.set(label.key, { key: label.key, name: label.name, minutes });
  }

  list(): NamedMinutes[] {
    const sorted: (NamedMinutes & { key: string })[] = [];
    for (const e of this.entries.values()) sorted.push({ key: e.key, name: e.name, minutes: cleanMinutes(e.minutes) });
    sorted.sort(byMinutesThenName);
    const list: NamedMinutes[] = new Array(sorted.length);
    for (let i = 0; i < sorted.length; i++) list[i] = { name: sorted[i]!.name, minutes: sorted[i]!.minutes };
    return list;
  }
}

/** The time of one day or one week of one person, with its project, category and task lists. */
export class TimeBucket {
  private minutes = 0;
  readonly projects = new Tally();
  readonly categories = new Tally();
  readonly tasks = new Tally();

  add(group: MinuteGroup, labels: ReportLabels): void {
    this.minutes += group.minutes;
    this.projects.add(labels.project(group.userId, group.projectId), group.minutes);
    this.categories.add(labels.category(group.categoryId), group.minutes);
    this.tasks.add(labels.task(group.userId, group.taskId), group.minutes);
  }

  get duration(): number {
    return cleanMinutes(this.minutes);
  }

  taskList(): { title: string; duration: number }[] {
    return this.tasks.list().map((t) => ({ title: t.name, duration: t.minutes }));
  }
}
