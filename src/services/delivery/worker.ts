/**
 * The delivery worker inside `daybook serve` (docs/delivery.md): it claims due deliveries from
 * the outbox, attempts them, and records each attempt with what follows from it — delivered,
 * tried again on the retry schedule, given up, or the destination disabled (410 Gone, or failing
 * for 3 days). Any number of server processes may run one: a claim is a lease, so each delivery
 * is attempted by one process at a time, and a process that dies mid-attempt leaves the
 * delivery to be attempted again when its lease ends. Delivery is at least once; receivers tell
 * repeats apart by `webhook-id`.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Storage } from '../../storage/database.ts';
import { writeTransaction } from '../../storage/database.ts';
import {
  type ClaimedDelivery,
  claimDue,
  countAttempt,
  insertAttempt,
  pruneFinished,
  releaseLease,
  updateDelivery,
} from '../../storage/deliveries.ts';
import { disableDestination, markDelivered, markFailing } from '../../storage/destinations.ts';
import { GIVE_UP_AFTER_MS, nextAttemptAt } from './schedule.ts';
import { type AttemptResult, sendDelivery } from './send.ts';

export interface DeliverySettings {
  /** The time limit of one attempt. */
  timeoutMs: number;
  /** Private, loopback and link-local addresses and http allowed (DAYBOOK_DELIVERY_ALLOW_PRIVATE). */
  allowPrivate: boolean;
}

export interface WorkerOptions extends DeliverySettings {
  storage: Storage;
  now: () => number;
  /** How often the outbox is looked at; 0: only when runOnce() or wake() is called. */
  pollMs: number;
  /** Attempts in flight at once in this process. */
  concurrency: number;
  metrics?: { deliveryAttempt(kind: string, outcome: string): void };
  log?: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>;
}

/** Finished deliveries and their attempts are kept this long, then forgotten. */
const KEEP_FINISHED_MS = 30 * 24 * 3600_000;
const PRUNE_EVERY_MS = 3600_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** How long a claim on a delivery lasts for attempts of this time limit. */
export const leaseFor = (timeoutMs: number) => 2 * timeoutMs + 5000;

export class DeliveryWorker {
  private readonly options: WorkerOptions;
  private readonly stopping = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | null = null;
  private again = false;
  private lastPrune = 0;

  constructor(options: WorkerOptions) {
    this.options = options;
  }

  /**
   * A claim lasts twice the attempt's time limit and 5 s: a live process records its attempt
   * well before; one that died leaves the delivery to others that soon after.
   */
  private get leaseMs(): number {
    return leaseFor(this.options.timeoutMs);
  }

  /** Polls the outbox every `pollMs` until stop(). */
  start(): void {
    if (this.options.pollMs > 0) this.schedule(0);
  }

  /** Looks at the outbox now (a summary was just built), rather than at the next poll. */
  wake(): void {
    if (this.stopping.signal.aborted) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.runOnce()
        .catch((err) => {
          // The database being away is logged once by its watch (storage/health.ts).
          if (!this.options.storage.health.suspect(err)) this.options.log?.error({ err }, 'delivery run failed');
        })
        .finally(() => {
          if (this.stopping.signal.aborted) return;
          if (this.again) {
            this.again = false;
            this.schedule(0);
          } else if (this.options.pollMs > 0) this.schedule(this.options.pollMs);
        });
    }, ms);
  }

  /** Attempts every delivery that is due, then returns how many attempts were made. */
  runOnce(): Promise<number> {
    this.running ??= this.drain().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async drain(): Promise<number> {
    const { storage, now, concurrency } = this.options;
    let attempts = 0;
    let failure: unknown = null;
    // Up to `concurrency` attempts in flight; each that ends makes room for another claim, so a
    // slow receiver holds one slot, not the whole batch.
    const inFlight = new Set<Promise<void>>();
    let more = true;
    while (!this.stopping.signal.aborted && failure === null) {
      if (more && inFlight.size < concurrency) {
        const claimed = await claimDue(storage, now(), concurrency - inFlight.size, this.leaseMs);
        if (claimed.length === 0) more = false;
        for (const delivery of claimed) {
          const attempt: Promise<void> = this.attempt(delivery).then(
            (made) => {
              if (made) attempts++;
              inFlight.delete(attempt);
            },
            (err) => {
              failure ??= err;
              inFlight.delete(attempt);
            },
          );
          inFlight.add(attempt);
        }
      }
      if (inFlight.size === 0) break;
      if (!more || inFlight.size >= concurrency) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    if (failure !== null) throw failure;
    if (now() - this.lastPrune >= PRUNE_EVERY_MS) {
      this.lastPrune = now();
      await pruneFinished(storage.db, now() - KEEP_FINISHED_MS);
    }
    return attempts;
  }

  /** One attempt of a claimed delivery and its record; false when the process stopped first. */
  private async attempt(delivery: ClaimedDelivery): Promise<boolean> {
    const { storage, now, timeoutMs, allowPrivate } = this.options;
    let result: AttemptResult;
    try {
      result = await sendDelivery(delivery, { timeoutMs, allowPrivate, signal: this.stopping.signal });
    } catch (err) {
      // Stopping: the delivery is given back untried, for this or another process to attempt.
      if (this.stopping.signal.aborted) {
        await releaseLease(storage.db, delivery.id).catch(() => {});
        return false;
      }
      throw err;
    }
    await recordAttempt(storage, delivery, result, now());
    this.options.metrics?.deliveryAttempt(delivery.kind, result.outcome);
    if (result.outcome !== 'delivered') {
      this.options.log?.warn(
        {
          destination: delivery.destinationId,
          delivery: delivery.id,
          attempt: delivery.attempts + 1,
          outcome: result.outcome,
          statusCode: result.statusCode,
        },
        'delivery attempt failed',
      );
    }
    return true;
  }

  /** Stops polling and ends the attempts in flight; their deliveries are attempted again later. */
  async stop(): Promise<void> {
    this.stopping.abort(new Error('the delivery worker is stopping'));
    clearTimeout(this.timer);
    await this.running?.catch(() => {});
  }
}

/**
 * Records an attempt and its consequences in one transaction: the delivery's state and next
 * attempt, and the destination's failing streak or its end.
 */
export async function recordAttempt(
  storage: Storage,
  delivery: ClaimedDelivery,
  result: AttemptResult,
  now: number,
  { retry = true }: { retry?: boolean } = {},
): Promise<void> {
  await writeTransaction(storage, async (trx) => {
    // Numbered by the database, not by what the claim read: the count stays right even if
    // another process attempted the delivery meanwhile. Gone (its destination was deleted
    // during the attempt): nothing to record.
    const attempt = await countAttempt(trx, delivery.id);
    if (attempt === null) return;
    await insertAttempt(trx, {
      delivery_id: delivery.id,
      attempt,
      destination_id: delivery.destinationId,
      attempted_at: now,
      duration_ms: result.durationMs,
      outcome: result.outcome,
      status_code: result.statusCode,
      error: result.error,
      response_excerpt: result.responseExcerpt,
    });
    if (result.outcome === 'delivered') {
      await updateDelivery(trx, delivery.id, {
        status: 'delivered',
        lease_until: null,
        last_error: null,
        finished_at: now,
      });
      if (retry) await markDelivered(trx, delivery.destinationId, now);
      return;
    }
    const next =
      retry && result.outcome !== 'gone' ? nextAttemptAt(attempt, now, delivery.createdAt, result.retryAfter) : null;
    await updateDelivery(trx, delivery.id, {
      lease_until: null,
      last_error: result.error,
      ...(next === null ? { status: 'failed' as const, finished_at: now } : { next_attempt_at: next }),
    });
    if (!retry) return;
    if (result.outcome === 'gone') {
      await disableDestination(
        trx,
        delivery.destinationId,
        now,
        `The destination answered 410 Gone on ${iso(now)}: it no longer accepts deliveries. Fix it and enable it again.`,
      );
      return;
    }
    const failingSince = await markFailing(trx, delivery.destinationId, now);
    if (now - failingSince >= GIVE_UP_AFTER_MS) {
      await disableDestination(
        trx,
        delivery.destinationId,
        now,
        `Every delivery failed for 3 days (since ${iso(failingSince)}); the last error: ${result.error ?? result.outcome}. Fix it and enable it again.`,
      );
    }
  });
}
