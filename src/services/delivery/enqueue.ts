/**
 * Puts a just-built summary in the outbox of each destination that takes it, inside the
 * transaction that saves the summary (services/summaries/generate.ts): both are written or
 * neither. A summary first built goes to every enabled destination of its level
 * (`summary.created`); a rebuilt one whose content changed, only to those that asked for updates
 * (`summary.updated`). Summaries of periods that ended more than a week before they were built
 * (an import of last year's data) are not delivered: a backfill does not flood a channel.
 */
import { randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import { daysBetween, localDateOf } from '../../lib/time.ts';
import { enqueueDelivery } from '../../storage/deliveries.ts';
import { destinationsForLevel } from '../../storage/destinations.ts';
import type { Database } from '../../storage/schema.ts';
import type { Summary } from '../summaries/summary.ts';
import { type DeliveryEvent, deliveryBody } from './payloads.ts';

/** Periods that ended longer ago than this when built are not delivered. */
const DELIVERY_MAX_AGE_DAYS = 7;

/** The `webhook-id` of a delivery, kept on every attempt. */
export const newDeliveryId = () => `msg_${randomBytes(16).toString('base64url')}`;

export interface BuiltSummary {
  userId: string;
  timezone: string;
  summary: Summary;
  subject: string;
  event: Extract<DeliveryEvent, 'summary.created' | 'summary.updated'>;
  builtAt: number;
}

/** Returns how many deliveries were queued. */
export async function enqueueSummaryDeliveries(trx: Transaction<Database>, built: BuiltSummary): Promise<number> {
  const { summary } = built;
  if (daysBetween(summary.end, localDateOf(built.builtAt, built.timezone)) > DELIVERY_MAX_AGE_DAYS) return 0;
  const destinations = (await destinationsForLevel(trx, built.userId, summary.level)).filter(
    (d) => built.event === 'summary.created' || d.updates === 1,
  );
  for (const destination of destinations) {
    await enqueueDelivery(trx, {
      id: newDeliveryId(),
      destination_id: destination.id,
      event: built.event,
      level: summary.level,
      period_start: summary.start,
      body: deliveryBody(destination.kind, {
        event: built.event,
        userId: built.userId,
        summary,
        subject: built.subject,
        at: built.builtAt,
      }),
      status: 'pending',
      attempts: 0,
      next_attempt_at: built.builtAt,
      lease_until: null,
      last_error: null,
      created_at: built.builtAt,
      finished_at: null,
    });
  }
  return destinations.length;
}
