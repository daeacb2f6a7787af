/**
 * `/destinations` (docs/api.md, "Delivering summaries"): a user's places for summaries, their
 * test action and their recent attempts. Only the owner sees or changes a destination; another
 * user's id is not found.
 */
import { randomBytes } from 'node:crypto';
import { ApiError, badRequest } from '../../errors.ts';
import { isBlank } from '../../lib/blank.ts';
import { toIso } from '../../lib/time.ts';
import type { Attempt, CreateDestinationBody, Destination, UpdateDestinationBody } from '../../schemas/destinations.ts';
import { DELIVERY_LEVELS } from '../../schemas/destinations.ts';
import { displayNameOf, type UserRow } from '../../storage/accounts.ts';
import type { Storage } from '../../storage/database.ts';
import { writeTransaction } from '../../storage/database.ts';
import { type ClaimedDelivery, enqueueDelivery, recentAttempts } from '../../storage/deliveries.ts';
import {
  countDestinations,
  type DestinationRow,
  deleteDestination,
  destinationExists,
  findDestination,
  insertDestination,
  listDestinations,
  updateDestination,
} from '../../storage/destinations.ts';
import { quoted } from '../recording/rules.ts';
import { firstNameOf, subjectOf } from '../summaries/summary.ts';
import { maskUrl, resolvedProblem, urlProblem } from './address.ts';
import { newDeliveryId } from './enqueue.ts';
import { deliveryBody, sampleSummary } from './payloads.ts';
import { sendDelivery } from './send.ts';
import { type DeliverySettings, leaseFor, recordAttempt } from './worker.ts';

/** Destinations per user at most. */
const MAX_DESTINATIONS = 20;

const NOT_FOUND = 'Destination not found';

const newDestinationId = () => `dst_${randomBytes(12).toString('base64url')}`;
/** A Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

function destinationView(row: DestinationRow): Destination {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    url: maskUrl(row.url),
    levels: row.levels.split(','),
    updates: row.updates === 1,
    enabled: row.enabled === 1,
    disabledReason: row.disabled_reason,
    disabledAt: toIso(row.disabled_at),
    failingSince: toIso(row.failing_since),
    lastDeliveredAt: toIso(row.last_delivered_at),
    createdAt: toIso(row.created_at)!,
    updatedAt: toIso(row.updated_at)!,
  };
}

/** Levels stored in their natural order, whatever order they were given in. */
const levelsText = (levels: readonly string[]) => DELIVERY_LEVELS.filter((l) => levels.includes(l)).join(',');

async function checkUrl(url: string, settings: DeliverySettings): Promise<void> {
  const problem = urlProblem(url, settings.allowPrivate) ?? (await resolvedProblem(url, settings.allowPrivate));
  if (problem) throw badRequest(problem);
}

function checkName(name: string | null | undefined): void {
  if (typeof name === 'string' && isBlank(name)) throw badRequest('name must not be blank');
}

async function ownDestination(storage: Storage, userId: string, id: string): Promise<DestinationRow> {
  const row = await findDestination(storage.db, userId, id);
  if (!row) throw new ApiError(404, NOT_FOUND);
  return row;
}

export async function listDestinationsOf(storage: Storage, userId: string): Promise<Destination[]> {
  return (await listDestinations(storage.db, userId)).map(destinationView);
}

export async function getDestination(storage: Storage, userId: string, id: string): Promise<Destination> {
  return destinationView(await ownDestination(storage, userId, id));
}

export async function createDestination(
  storage: Storage,
  userId: string,
  body: CreateDestinationBody,
  settings: DeliverySettings,
  now: number,
): Promise<{ destination: Destination; secret?: string }> {
  checkName(body.name);
  await checkUrl(body.url, settings);
  const row: DestinationRow = {
    id: body.id ?? newDestinationId(),
    user_id: userId,
    kind: body.kind,
    name: body.name?.trim() ?? null,
    url: body.url,
    secret: body.kind === 'webhook' ? newSecret() : null,
    levels: levelsText(body.levels ?? ['day']),
    updates: body.updates ? 1 : 0,
    enabled: 1,
    disabled_reason: null,
    disabled_at: null,
    failing_since: null,
    last_delivered_at: null,
    created_at: now,
    updated_at: now,
  };
  await writeTransaction(storage, async (trx) => {
    if ((await countDestinations(trx, userId)) >= MAX_DESTINATIONS)
      throw badRequest(`A user has at most ${MAX_DESTINATIONS} destinations: delete one first`);
    if (body.id !== undefined && (await destinationExists(trx, body.id)))
      throw new ApiError(409, `Destination id already in use: ${quoted(body.id)}`);
    await insertDestination(trx, row);
  });
  return { destination: destinationView(row), ...(row.secret ? { secret: row.secret } : {}) };
}

export async function changeDestination(
  storage: Storage,
  userId: string,
  id: string,
  body: UpdateDestinationBody,
  settings: DeliverySettings,
  now: number,
): Promise<Destination> {
  await ownDestination(storage, userId, id);
  checkName(body.name);
  if (body.url !== undefined) await checkUrl(body.url, settings);
  await updateDestination(storage.db, userId, id, {
    ...(body.url !== undefined && { url: body.url }),
    ...(body.name !== undefined && { name: body.name?.trim() ?? null }),
    ...(body.levels !== undefined && { levels: levelsText(body.levels) }),
    ...(body.updates !== undefined && { updates: body.updates ? 1 : 0 }),
    // Enabling again clears why it was disabled and starts a new failing streak.
    ...(body.enabled === true && { enabled: 1, disabled_reason: null, disabled_at: null, failing_since: null }),
    ...(body.enabled === false && { enabled: 0, disabled_reason: null, disabled_at: now }),
    updated_at: now,
  });
  return destinationView(await ownDestination(storage, userId, id));
}

export async function removeDestination(storage: Storage, userId: string, id: string): Promise<void> {
  const removed = await writeTransaction(storage, (trx) => deleteDestination(trx, userId, id));
  if (!removed) throw new ApiError(404, NOT_FOUND);
}

type AttemptListRow = Awaited<ReturnType<typeof recentAttempts>>[number];

function attemptView(row: AttemptListRow): Attempt {
  return {
    deliveryId: row.delivery_id,
    attempt: row.attempt,
    event: row.event,
    level: row.level,
    periodStart: row.period_start,
    attemptedAt: toIso(row.attempted_at)!,
    durationMs: row.duration_ms,
    outcome: row.outcome,
    statusCode: row.status_code,
    error: row.error,
    responseExcerpt: row.response_excerpt,
    deliveryStatus: row.status,
    nextAttemptAt: row.status === 'pending' ? toIso(row.next_attempt_at) : null,
  };
}

export async function deliveriesOf(storage: Storage, userId: string, id: string, limit: number): Promise<Attempt[]> {
  await ownDestination(storage, userId, id);
  return (await recentAttempts(storage.db, id, limit)).map(attemptView);
}

/**
 * Sends a sample summary to the destination now, once, and answers how it went. The attempt is
 * listed with the others; it is not retried and changes nothing of the destination's state.
 */
export async function testDestination(
  storage: Storage,
  user: UserRow,
  id: string,
  settings: DeliverySettings,
  now: number,
  metrics?: { deliveryAttempt(kind: string, outcome: string): void },
): Promise<{ delivered: boolean; attempt: Attempt }> {
  const destination = await ownDestination(storage, user.id, id);
  const summary = sampleSummary(now, user.timezone);
  const subject = `Test: ${subjectOf(summary, firstNameOf(displayNameOf(user)))}`;
  const delivery: ClaimedDelivery = {
    id: newDeliveryId(),
    destinationId: destination.id,
    userId: user.id,
    event: 'destination.test',
    body: deliveryBody(destination.kind, { event: 'destination.test', userId: user.id, summary, subject, at: now }),
    attempts: 0,
    createdAt: now,
    kind: destination.kind,
    url: destination.url,
    secret: destination.secret,
  };
  // Held by this request (a lease past its attempt), so no worker takes it meanwhile.
  await enqueueDelivery(storage.db, {
    id: delivery.id,
    destination_id: destination.id,
    event: delivery.event,
    level: null,
    period_start: null,
    body: delivery.body,
    status: 'pending',
    attempts: 0,
    next_attempt_at: now,
    lease_until: now + leaseFor(settings.timeoutMs),
    last_error: null,
    created_at: now,
    finished_at: null,
  });
  const result = await sendDelivery(delivery, settings);
  await recordAttempt(storage, delivery, result, now, { retry: false });
  metrics?.deliveryAttempt(destination.kind, result.outcome);
  return {
    delivered: result.outcome === 'delivered',
    attempt: {
      deliveryId: delivery.id,
      attempt: 1,
      event: delivery.event,
      level: null,
      periodStart: null,
      attemptedAt: toIso(now)!,
      durationMs: result.durationMs,
      outcome: result.outcome,
      statusCode: result.statusCode,
      error: result.error,
      responseExcerpt: result.responseExcerpt,
      deliveryStatus: result.outcome === 'delivered' ? 'delivered' : 'failed',
      nextAttemptAt: null,
    },
  };
}
