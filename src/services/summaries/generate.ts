/**
 * Builds the summaries that are due: for every user and level, each period that has ended in
 * the user's timezone and has tracked time, when it has no summary yet or when a day it covers
 * (or a day of the previous period it is compared with) changed after it was built. Summaries
 * of periods that no longer have tracked time are removed. Safe to run in several processes
 * at once: each build happens under a database claim and re-checks that it is still due.
 */
import { addDays, localDateOf } from '../../lib/time.ts';
import { displayNameOf, listUsers, type UserRow } from '../../storage/accounts.ts';
import type { Storage } from '../../storage/database.ts';
import {
  changedDays,
  deleteSummary,
  findSummaryContent,
  findSummaryStamp,
  latestChange,
  saveSummary,
  summaryStamps,
  trackedDays,
  withBuildClaim,
} from '../../storage/summaries.ts';
import { countDestinations } from '../../storage/destinations.ts';
import { enqueueSummaryDeliveries } from '../delivery/enqueue.ts';
import { composeSummary } from './compose.ts';
import { LEVELS, nextPeriod, type Period, periodOf, previousPeriod } from './periods.ts';
import { firstNameOf, subjectOf } from './summary.ts';

export interface GenerateOptions {
  /** The run's clock reading; periods must have ended before this instant's local day. */
  now: number;
  /** Only this user. */
  user?: UserRow;
  /** Only periods that end on or before this local date. */
  until?: string;
  onProgress?: (progress: GenerateProgress) => void;
  /**
   * Stops the run between two summaries (a server shutting down): each summary is built in its
   * own transaction, so what is left is due and built by the next run.
   */
  signal?: AbortSignal;
}

interface GenerateProgress {
  usersDone: number;
  usersTotal: number;
  built: number;
}

export interface GenerateStats {
  users: number;
  /** Summaries built or rebuilt by this run. */
  built: number;
  /** Summaries that were already current. */
  current: number;
  /** Summaries removed because their period has no tracked time any more. */
  removed: number;
  /** Due summaries another process was building at the same moment. */
  claimedElsewhere: number;
  /** Deliveries of the built summaries put in the outbox (docs/delivery.md). */
  deliveriesQueued: number;
}

const keyOf = (level: string, start: string) => `${level}:${start}`;

/** The database claim under which one summary is built. */
export function summaryClaimKey(userId: string, period: Pick<Period, 'level' | 'start'>): string {
  return `summary:${userId}:${period.level}:${period.start}`;
}

interface UserPlan {
  due: Period[];
  current: number;
  obsolete: Period[];
}

/** Which of the user's summaries to build and which to remove, from three cheap listings. */
/**
 * What to build and remove for one user: summaries of periods ending by `lastDay`; stored ones
 * no longer backed by tracked time, or of periods that have not ended by `yesterday` (built
 * before the user moved to a timezone that is behind), are removed.
 */
async function planUser(storage: Storage, user: UserRow, lastDay: string, yesterday: string): Promise<UserPlan> {
  const wanted = new Map<string, Period>();
  for (const day of await trackedDays(storage.db, user.id, lastDay)) {
    for (const level of LEVELS) {
      const period = periodOf(level, day, user.week_start);
      if (period.end <= lastDay) wanted.set(keyOf(level, period.start), period);
    }
  }
  // A changed day affects the summary of its period and, through the comparison, the next one.
  const changedAt = new Map<string, number>();
  for (const change of await changedDays(storage.db, user.id)) {
    for (const level of LEVELS) {
      const period = periodOf(level, change.date, user.week_start);
      for (const affected of [period, nextPeriod(period, user.week_start)]) {
        const key = keyOf(level, affected.start);
        changedAt.set(key, Math.max(changedAt.get(key) ?? 0, change.changedAt));
      }
    }
  }
  const plan: UserPlan = { due: [], current: 0, obsolete: [] };
  const stamps = new Map((await summaryStamps(storage.db, user.id)).map((s) => [keyOf(s.level, s.periodStart), s]));
  for (const [key, period] of wanted) {
    const stamp = stamps.get(key);
    if (!stamp || (changedAt.get(key) ?? 0) > stamp.builtAt) plan.due.push(period);
    else plan.current++;
  }
  for (const [key, stamp] of stamps) {
    if (!wanted.has(key) && (stamp.periodEnd <= lastDay || stamp.periodEnd > yesterday)) {
      plan.obsolete.push({ level: stamp.level, start: stamp.periodStart, end: stamp.periodEnd });
    }
  }
  return plan;
}

type BuildOutcome = { queued: number } | 'current' | 'removed' | 'claimed-elsewhere';

/**
 * Builds one summary and, in the same transaction, queues its deliveries (when the user has
 * destinations: `delivers`): `queued` says how many. A rebuild that changes nothing is saved (it
 * is current now) but not delivered again.
 */
async function buildSummary(
  storage: Storage,
  user: UserRow,
  period: Period,
  builtAt: number,
  delivers: boolean,
): Promise<BuildOutcome> {
  const claim = await withBuildClaim(storage, summaryClaimKey(user.id, period), async (trx) => {
    // Another process may have finished this summary since the plan was made.
    const stamp = await findSummaryStamp(trx, user.id, period.level, period.start);
    if (stamp) {
      const changed = await latestChange(trx, user.id, previousPeriod(period, user.week_start).start, period.end);
      if (changed === null || changed <= stamp.builtAt) return 'current' as const;
    }
    const summary = await composeSummary(trx, user, period);
    if (!summary) {
      if (stamp) await deleteSummary(trx, user.id, period.level, period.start);
      return stamp ? ('removed' as const) : ('current' as const);
    }
    const content = JSON.stringify(summary);
    const before = delivers && stamp ? await findSummaryContent(trx, user.id, period.level, period.start) : undefined;
    await saveSummary(trx, {
      userId: user.id,
      level: period.level,
      periodStart: period.start,
      periodEnd: period.end,
      content,
      builtAt,
    });
    if (!delivers || before === content) return { queued: 0 };
    const queued = await enqueueSummaryDeliveries(trx, {
      userId: user.id,
      timezone: user.timezone,
      summary,
      subject: subjectOf(summary, firstNameOf(displayNameOf(user))),
      event: stamp ? 'summary.updated' : 'summary.created',
      builtAt,
    });
    return { queued };
  });
  return claim.claimed ? claim.result : 'claimed-elsewhere';
}

export async function generateSummaries(storage: Storage, options: GenerateOptions): Promise<GenerateStats> {
  const users = options.user ? [options.user] : await listUsers(storage.db);
  const stats: GenerateStats = {
    users: users.length,
    built: 0,
    current: 0,
    removed: 0,
    claimedElsewhere: 0,
    deliveriesQueued: 0,
  };
  // The total first, so a progress bar starts at it rather than at 0/0.
  options.onProgress?.({ usersDone: 0, usersTotal: users.length, built: 0 });
  for (const [index, user] of users.entries()) {
    if (options.signal?.aborted) break;
    const yesterday = addDays(localDateOf(options.now, user.timezone), -1);
    const lastDay = options.until && options.until < yesterday ? options.until : yesterday;
    const plan = await planUser(storage, user, lastDay, yesterday);
    // Most users have no destination: their summaries are built without looking for any.
    const delivers = plan.due.length > 0 && (await countDestinations(storage.db, user.id)) > 0;
    stats.current += plan.current;
    for (const period of plan.obsolete) {
      await deleteSummary(storage.db, user.id, period.level, period.start);
      stats.removed++;
    }
    for (const period of plan.due) {
      if (options.signal?.aborted) break;
      // built_at is the run's start, not the build's end: a change committed while the run
      // was reading still has a later changed_at and is picked up by the next run.
      const outcome = await buildSummary(storage, user, period, options.now, delivers);
      if (typeof outcome === 'object') {
        stats.built++;
        stats.deliveriesQueued += outcome.queued;
      } else if (outcome === 'current') stats.current++;
      else if (outcome === 'removed') stats.removed++;
      else stats.claimedElsewhere++;
    }
    options.onProgress?.({ usersDone: index + 1, usersTotal: users.length, built: stats.built });
  }
  return stats;
}
