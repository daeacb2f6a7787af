/**
 * The request shapes of the load scenarios, shared by the load runner (run.ts) and the
 * in-process cost measurement (in-process.ts) so both measure the same requests.
 */
import type { DatasetFacts } from '../dataset.ts';
import { DAY_MS } from '../../src/lib/time.ts';

export interface LoadRequest {
  method?: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** What kind of request it is, for latencies by kind (harness.ts, load). */
  kind?: string;
}

export const keyHeader = (key: string) => ({ 'x-api-key': key });

/** Ranges end at the midnight (UTC) after the dataset's last activity. */
const rangeEnd = (facts: DatasetFacts) => Math.ceil(facts.lastStart / DAY_MS) * DAY_MS;

/**
 * The midnight (UTC) that begins the `back`-th day (0: the newest) on which the scenarios write.
 * The dataset's last day is skipped: a dataset made today ends on its people's local
 * yesterday, which east of UTC is the UTC today, still going on west of UTC, where the server
 * refuses time that ends in the future (a task's 09:00-11:00 there was a 400 in one run).
 */
const writeDay = (facts: DatasetFacts, back: number) => rangeEnd(facts) - (2 + back) * DAY_MS;

function reportRequest(key: string, level: string, days: number, facts: DatasetFacts, extra: object = {}): LoadRequest {
  const to = rangeEnd(facts);
  return {
    method: 'POST',
    path: '/report',
    headers: keyHeader(key),
    body: JSON.stringify({ dateRange: { from: to - days * DAY_MS, to }, aggregationLevel: level, ...extra }),
  };
}

/**
 * Where the scenarios that write send their records (docs/performance.md, "write" and "mixed"):
 * the run's id prefix (writes.ts, runPrefix), so every record is new, and a key with
 * `activity:write` for each user.
 */
export interface WriteTarget {
  prefix: string;
  keys: Record<string, string>;
}

/**
 * `size` new activities of `user`, the n-th batch of the run: ids `<prefix><n>-<i>`, 1 minute
 * each, 40 s apart from 06:00 UTC on one of the 60 days before the dataset's last day (the
 * n-th batch's day, going back and round again: writeDay), so each starts in the past within
 * the dataset's range and none ends in the future. Headline and description from the dataset's
 * words; no task, project or category.
 */
export function activityBatch(
  facts: DatasetFacts,
  target: WriteTarget,
  user: string,
  n: number,
  size: number,
  days = 60,
): LoadRequest {
  const day = writeDay(facts, n % days);
  const words = facts.words;
  const activities = Array.from({ length: size }, (_, i) => ({
    id: `${target.prefix}${n}-${i}`,
    start: new Date(day + 6 * 3_600_000 + i * 40_000).toISOString(),
    durationMinutes: 1,
    headline: `${words[(n + i) % words.length]} ${words[(n * 7 + i * 3) % words.length]}`,
    description: `Worked on the ${words[(n * 3 + i) % words.length]} in the editor`,
  }));
  return {
    method: 'POST',
    path: '/activities',
    headers: keyHeader(target.keys[user]!),
    body: JSON.stringify({ activities }),
  };
}

/** The kinds of request in the mixed scenario (kindOf gives each its share). */
export const MIXED_KINDS = [
  'report-day-7d',
  'report-activity-1d',
  'message',
  'projects',
  'search',
  'user',
  'write-activities',
  'write-task',
] as const;
export type MixedKind = (typeof MIXED_KINDS)[number];

/** The shares, in percent: the reads of the mix before writes came, each × 0.9, and 10 % writes. */
const SHARES: [MixedKind, number][] = [
  ['report-day-7d', 27],
  ['report-activity-1d', 9],
  ['message', 18],
  ['projects', 9],
  ['search', 9],
  ['user', 18],
  ['write-activities', 5],
  ['write-task', 5],
];

/** The kind of the n-th request, by n % 100, spread so each kind's turns are evenly spaced. */
const KIND_OF_SLOT: MixedKind[] = (() => {
  const slots: MixedKind[] = [];
  // Each kind's k-th turn falls at (k + 0.5) / share of the way: then order by that place.
  const places = SHARES.flatMap(([kind, share]) =>
    Array.from({ length: share }, (_, k) => ({ kind, at: (k + 0.5) / share })),
  );
  places.sort((a, b) => a.at - b.at);
  for (const p of places) slots.push(p.kind);
  return slots;
})();

/** The kind of the mixed scenario's n-th request. */
export const kindOf = (n: number): MixedKind => KIND_OF_SLOT[n % KIND_OF_SLOT.length]!;

/**
 * The mixed scenario's requests: paid users' keys in turn; 27 % 7-day day reports, 9 % 1-day
 * activity reports, 18 % /message of one of the user's recent days with a summary
 * (`summaryDays`, from summaryDaysOf), 9 % /projects, 9 % /search, 18 % /user, and 10 % writes
 * with `writes`' keys and ids: 5 % `POST /activities` of 1 to 5 new activities on one of the
 * 7 days before the dataset's last day, 5 % `POST /tasks` creating a task dated one of those
 * days with 15 to 120 minutes (recorded from 09:00 local).
 * `mixedRequests(facts, days, writes)(n)` is the n-th request; `only` keeps one kind.
 */
export function mixedRequests(
  facts: DatasetFacts,
  summaryDays: ReadonlyMap<string, string[]>,
  writes: WriteTarget,
  only?: MixedKind,
): (n: number) => LoadRequest {
  const users = facts.paidUsers;
  const to = rangeEnd(facts);
  return (n) => {
    const user = users[n % users.length]!;
    const headers = keyHeader(facts.keys[user]!);
    // What varies between turns of one kind (kindOf depends on n % 100 only).
    const turn = Math.floor(n / KIND_OF_SLOT.length);
    switch (only ?? kindOf(n)) {
      case 'report-day-7d':
        return {
          method: 'POST',
          path: '/report',
          headers,
          body: JSON.stringify({ dateRange: { from: to - 7 * DAY_MS, to }, aggregationLevel: 'day' }),
        };
      case 'report-activity-1d':
        return {
          method: 'POST',
          path: '/report',
          headers,
          body: JSON.stringify({ dateRange: { from: to - DAY_MS, to }, aggregationLevel: 'activity' }),
        };
      case 'message': {
        const days = summaryDays.get(user) ?? [];
        const date =
          days[Math.floor(n / users.length) % days.length] ?? new Date(to - DAY_MS).toISOString().slice(0, 10);
        return { path: `/message?date=${date}&format=${turn % 4 === 0 ? 'slack' : 'html'}`, headers };
      }
      case 'projects':
        return { path: '/projects', headers };
      case 'search':
        return {
          method: 'POST',
          path: '/search',
          headers,
          body: JSON.stringify({ query: facts.words[(n + turn) % facts.words.length], days: 7 }),
        };
      case 'user':
        return { path: '/user', headers };
      case 'write-activities':
        return activityBatch(facts, writes, user, n, 1 + (turn % 5), 7);
      case 'write-task': {
        const words = facts.words;
        return {
          method: 'POST',
          path: '/tasks',
          headers: keyHeader(writes.keys[user]!),
          body: JSON.stringify({
            id: `${writes.prefix}t${n}`,
            title: `${words[turn % words.length]} ${words[(turn * 7 + 3) % words.length]}`,
            date: new Date(writeDay(facts, turn % 7)).toISOString().slice(0, 10),
            minutes: 15 * (1 + (turn % 8)),
          }),
        };
      }
    }
  };
}

/** The single-shape latency scenarios' requests (run.ts), by scenario name. */
export function scenarioRequests(facts: DatasetFacts): Record<string, LoadRequest> {
  const heavyKey = facts.keys[facts.heavyUser]!;
  return {
    'report-day-year': reportRequest(heavyKey, 'day', 365, facts),
    'report-activity-90d': reportRequest(heavyKey, 'activity', 90, facts),
    ...(facts.team
      ? { 'report-team': reportRequest(facts.team.memberKey, 'day', 90, facts, { teamIds: [facts.team.id] }) }
      : {}),
  };
}
