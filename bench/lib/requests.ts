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
}

export const keyHeader = (key: string) => ({ 'x-api-key': key });

/** Ranges end at the midnight (UTC) after the dataset's last activity. */
const rangeEnd = (facts: DatasetFacts) => Math.ceil(facts.lastStart / DAY_MS) * DAY_MS;

function reportRequest(key: string, level: string, days: number, facts: DatasetFacts, extra: object = {}): LoadRequest {
  const to = rangeEnd(facts);
  return {
    method: 'POST',
    path: '/report',
    headers: keyHeader(key),
    body: JSON.stringify({ dateRange: { from: to - days * DAY_MS, to }, aggregationLevel: level, ...extra }),
  };
}

/** The kinds of request in the mixed scenario, each with its share of ten. */
export const MIXED_KINDS = ['report-day-7d', 'report-activity-1d', 'message', 'projects', 'search', 'user'] as const;
export type MixedKind = (typeof MIXED_KINDS)[number];

function kindOf(n: number): MixedKind {
  switch (n % 10) {
    case 0:
    case 1:
    case 2:
      return 'report-day-7d';
    case 3:
      return 'report-activity-1d';
    case 4:
    case 5:
      return 'message';
    case 6:
      return 'projects';
    case 7:
      return 'search';
    default:
      return 'user';
  }
}

/**
 * The mixed scenario's requests: paid users' keys in turn; 30 % 7-day day reports, 10 % 1-day
 * activity reports, 20 % /message of one of the user's recent days with a summary
 * (`summaryDays`, from summaryDaysOf), 10 % /projects, 10 % /search, 20 % /user.
 * `mixedRequests(facts, days)(n)` is the n-th request; `only` keeps one kind.
 */
export function mixedRequests(
  facts: DatasetFacts,
  summaryDays: ReadonlyMap<string, string[]>,
  only?: MixedKind,
): (n: number) => LoadRequest {
  const users = facts.paidUsers;
  const to = rangeEnd(facts);
  return (n) => {
    const user = users[n % users.length]!;
    const headers = keyHeader(facts.keys[user]!);
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
        return { path: `/message?date=${date}&format=${n % 4 === 0 ? 'slack' : 'html'}`, headers };
      }
      case 'projects':
        return { path: '/projects', headers };
      case 'search':
        return {
          method: 'POST',
          path: '/search',
          headers,
          body: JSON.stringify({ query: facts.words[n % facts.words.length], days: 7 }),
        };
      case 'user':
        return { path: '/user', headers };
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
