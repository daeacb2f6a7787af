/**
 * Adding up minutes for report rows: the `{name, minutes}` lists of day, week and task rows
 * (docs/api.md, "POST /report": minutes descending, then name) and the exact `duration_relative`.
 */
import type { NamedMinutes } from '../../schemas/report.ts';
import type { MinuteGroup } from '../../storage/aggregates.ts';
import type { Label, ReportLabels } from './labels.ts';

/**
 * Sums of fractional minutes pick up binary noise (0.1 + 0.2); six decimals keep every real
 * value and drop the noise.
 */
export function cleanMinutes(minutes: number): number {
  return Math.round(minutes * 1e6) / 1e6;
}

/**
 * 100 × minutes ÷ target rounded half up to one decimal, computed on integers: a float
 * product such as 12.35 is stored as 12.3499… and would round the wrong way. The integers stay
 * exact in doubles up to 2^53 (years of minutes); beyond that BigInt takes over.
 */
export function percentOfTarget(minutes: number, targetMinutes: number): number {
  const micro = Math.round(minutes * 1e6);
  const numerator = 1000 * micro;
  const denominator = targetMinutes * 1_000_000;
  if (2 * numerator + denominator <= Number.MAX_SAFE_INTEGER && Number.isSafeInteger(2 * denominator)) {
    // A correctly rounded quotient of exact integers below 2^53 never rounds up to the next
    // integer unless it is one, so its floor is the integer division.
    return Math.floor((2 * numerator + denominator) / (2 * denominator)) / 10;
  }
  const big =
    (2n * 1000n * BigInt(micro) + BigInt(targetMinutes) * 1_000_000n) / (2n * BigInt(targetMinutes) * 1_000_000n);
  return Number(big) / 10;
}

/** Plain code-unit order, the same on every machine and locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Minutes per label; labels with the same key (the same id, or the same masked name) merge.
 * A day or week names a handful of projects, categories and tasks, so the entries are a short
 * list searched in order: cheaper than a Map per list for the thousands of lists of a report.
 */
export class Tally {
  private readonly keys: string[] = [];
  private readonly names: string[] = [];
  private readonly minutes: number[] = [];

  add(label: Label | null, minutes: number): void {
    if (!label) return;
    const { keys } = this;
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] === label.key) {
        this.minutes[i]! += minutes;
        return;
      }
    }
    keys.push(label.key);
    this.names.push(label.name);
    this.minutes.push(minutes);
  }

  /** `{name, minutes}` entries, minutes descending, then name (then key, for masked twins). */
  list(): NamedMinutes[] {
    return this.sorted((name, minutes) => ({ name, minutes }));
  }

  /** The entries in list order, each made by `entry`. */
  sorted<T>(entry: (name: string, minutes: number) => T): T[] {
    const { keys, names } = this;
    const minutes = this.minutes.map(cleanMinutes);
    const order = keys.map((_, i) => i);
    if (order.length > 1) {
      order.sort(
        (a, b) => minutes[b]! - minutes[a]! || compareText(names[a]!, names[b]!) || compareText(keys[a]!, keys[b]!),
      );
    }
    const out: T[] = new Array(order.length);
    for (let i = 0; i < order.length; i++) out[i] = entry(names[order[i]!]!, minutes[order[i]!]!);
    return out;
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
    return this.tasks.sorted((title, duration) => ({ title, duration }));
  }
}
