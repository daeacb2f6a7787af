/**
 * Calendar arithmetic in a user's IANA timezone. Local dates are `YYYY-MM-DD` strings;
 * instants are Unix milliseconds.
 */
import { DateTime, IANAZone } from 'luxon';

export const DAY_MS = 86_400_000;
// Every UTC offset change in the tz database happens on a quarter hour, so the offset is
// constant inside each UTC quarter-hour bucket.
const BUCKET_MS = 15 * 60_000;

export function isValidTimezone(tz: string): boolean {
  return IANAZone.isValidZone(tz);
}

// Offsets by zone and quarter-hour bucket: requests for many users interleave zones, so a
// single last-bucket memo per zone would miss; the map is cleared when it grows large.
const offsets = new Map<string, number>();

// The last bucket asked for: a batch of activities asks for one zone and nearby instants.
let lastZone = '';
let lastBucket = Number.NaN;
let lastOffset = 0;

/** UTC offset of `tz` at `ms`, in milliseconds. */
export function offsetAt(ms: number, tz: string): number {
  const bucket = Math.floor(ms / BUCKET_MS);
  if (bucket === lastBucket && tz === lastZone) return lastOffset;
  const key = `${tz}\u0000${bucket}`;
  let offsetMs = offsets.get(key);
  if (offsetMs === undefined) {
    offsetMs = DateTime.fromMillis(ms, { zone: tz }).offset * 60_000;
    if (offsets.size >= 200_000) offsets.clear();
    offsets.set(key, offsetMs);
  }
  lastZone = tz;
  lastBucket = bucket;
  lastOffset = offsetMs;
  return offsetMs;
}

// The last local day written out, by its number of days since 1970.
let lastDay = Number.NaN;
let lastDate = '';

/** The local calendar date of instant `ms` in `tz`. */
export function localDateOf(ms: number, tz: string): string {
  const local = ms + offsetAt(ms, tz);
  const day = Math.floor(local / DAY_MS);
  if (day !== lastDay) {
    lastDate = new Date(local).toISOString().slice(0, 10);
    lastDay = day;
  }
  return lastDate;
}

/** Local `HH:MM` of instant `ms` in `tz`. */
export function localTimeOf(ms: number, tz: string): string {
  return new Date(ms + offsetAt(ms, tz)).toISOString().slice(11, 16);
}

/**
 * luxon's local midnight of `date`: on a day that begins twice (clocks set back from 01:00 to
 * midnight) the second one. Only a first guess for firstInstantOfLocalDay.
 */
function luxonMidnight(date: string, tz: string): number {
  return memoByDay(startsOfDay, date, tz, () => DateTime.fromISO(date, { zone: tz }).startOf('day').toMillis());
}

const startsOfDay = new Map<string, number>();
const firstInstants = new Map<string, number>();

/** Day boundaries (and local times of a day) are asked for again and again (every report, every summary): remember them. */
function memoByDay(cache: Map<string, number>, date: string, tz: string, compute: () => number): number {
  const key = `${tz}\u0000${date}`;
  let value = cache.get(key);
  if (value === undefined) {
    value = compute();
    if (cache.size >= 100_000) cache.clear();
    cache.set(key, value);
  }
  return value;
}

/** The instant of local noon on `date` in `tz`. */
export function localNoon(date: string, tz: string): number {
  return localTimeOn(date, '12:00', tz);
}

/** The instant of the local time `hhmm` (HH:MM) on `date` in `tz` (a time the zone skipped: the one after the change). */
export function localTimeOn(date: string, hhmm: string, tz: string): number {
  // Asked once per task written (its noon, or 09:00 for its minutes): luxon's parse was 3 % of
  // the write thread's time under the mixed benchmark's task creates.
  return memoByDay(localTimes, `${date}T${hhmm}`, tz, () =>
    DateTime.fromISO(`${date}T${hhmm}:00`, { zone: tz }).toMillis(),
  );
}

const localTimes = new Map<string, number>();

/** The number of days of `month` (1–12) in `year` of the Gregorian calendar; 0 for another month number. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  if (month === 4 || month === 6 || month === 9 || month === 11) return 30;
  return Number.isInteger(month) && month >= 1 && month <= 12 ? 31 : 0;
}

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Day of week of a calendar date, 0 = Sunday … 6 = Saturday. */
export function weekdayOf(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

/** First day of the week containing `date`, for a week starting on monday or sunday. */
export function weekStartOf(date: string, weekStart: 'monday' | 'sunday'): string {
  const dow = weekdayOf(date);
  const back = weekStart === 'sunday' ? dow : (dow + 6) % 7;
  return addDays(date, -back);
}

/** Whole days from `a` to `b` (b − a). */
export function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
}

export function isValidLocalDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const parsed = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().slice(0, 10) === value;
}

export function toIso(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/**
 * localDateOf for long runs of instants (an import): remembers each zone's latest local day as
 * an instant range, so further instants on that day need no zone lookup.
 */
export function createLocalDateMemo(): (ms: number, tz: string) => string {
  const days = new Map<string, { date: string; from: number; to: number }>();
  return (ms, tz) => {
    const day = days.get(tz);
    if (day && ms >= day.from && ms < day.to) return day.date;
    const date = localDateOf(ms, tz);
    days.set(tz, { date, from: firstInstantOfLocalDay(date, tz), to: firstInstantOfLocalDay(addDays(date, 1), tz) });
    return date;
  };
}

const timeFormatters = new Map<string, (ms: number) => string>();

/**
 * localTimeOf for many instants in one zone (activity rows): one Intl formatter per zone is
 * several times faster than a zone offset lookup per instant. Formatters are kept per zone:
 * creating one costs more than formatting a day of activities.
 */
export function localTimeFormatter(tz: string): (ms: number) => string {
  let formatter = timeFormatters.get(tz);
  if (!formatter) {
    const format = new Intl.DateTimeFormat('en-GB', {
      timeZone: tz,
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatter = (ms) => format.format(ms);
    timeFormatters.set(tz, formatter);
  }
  return formatter;
}

/**
 * The first instant whose local date in `tz` is `date` or later: where `date` begins, or for a
 * date the zone skipped, where the next one begins. Also on days that begin twice (clocks set
 * back from 01:00 to midnight, as in Havana), where luxon answers the second midnight although
 * the day began an hour earlier. Every local day, week or period boundary is taken from here.
 */
export function firstInstantOfLocalDay(date: string, tz: string): number {
  return memoByDay(firstInstants, date, tz, () => searchFirstInstant(date, tz));
}

function searchFirstInstant(date: string, tz: string): number {
  const guess = luxonMidnight(date, tz);
  if (localDateOf(guess - 1, tz) < date) return guess;
  // Local dates never go backwards: search the hours before for the change of date.
  let before = guess - 2 * 86_400_000;
  let at = guess;
  while (at - before > 1) {
    const middle = Math.floor((before + at) / 2);
    if (localDateOf(middle, tz) < date) before = middle;
    else at = middle;
  }
  return at;
}

/**
 * Unix ms of an RFC 3339 instant (with `Z` or an offset), as the dataset format writes them; NaN
 * for anything else, a time without a zone included (Date.parse would read it in the server's
 * own zone). An offset of hours alone (`+02`) or without a colon (`+0200`) and a leap second
 * (`23:59:60`, read as the second after it, as Unix time counts) are accepted too.
 */
export function parseInstant(value: string): number {
  // The common form (an export's `2026-11-16T08:00:00.000Z`): Date.parse reads it as UTC.
  if (value.length >= 20 && value[10] === 'T' && value.endsWith('Z')) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms;
  }
  const match = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}(?::?\d{2})?)$/.exec(value);
  if (!match) return Number.NaN;
  const [, date, minute, second, fraction = '', zone] = match as unknown as [
    string,
    string,
    string,
    string,
    string | undefined,
    string,
  ];
  const offset =
    zone === 'Z' || zone === 'z' ? 'Z' : zone.length === 3 ? `${zone}:00` : `${zone.slice(0, 3)}:${zone.slice(-2)}`;
  if (second === '60') return Date.parse(`${date}T${minute}:59${offset}`) + 1000;
  return Date.parse(`${date}T${minute}:${second}${fraction}${offset}`);
}
