/**
 * The delivery outbox (docs/delivery.md): deliveries are written in the transaction that builds
 * their summary, claimed by one process at a time through a lease, and finished with a record
 * of every attempt.
 */
import type { Insertable, Kysely, Selectable, Transaction, Updateable } from 'kysely';
import { type Storage, writeTransaction } from './database.ts';
import type { DeliveriesTable, DeliveryAttemptsTable, Database, DestinationsTable } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export type AttemptRow = Selectable<DeliveryAttemptsTable>;

/** A claimed delivery with what sending it needs of its destination. */
export interface ClaimedDelivery {
  id: string;
  destinationId: string;
  userId: string;
  event: string;
  body: string;
  attempts: number;
  createdAt: number;
  kind: DestinationsTable['kind'];
  url: string;
  secret: string | null;
}

/**
 * Adds a delivery; a pending one of the same summary to the same destination, unless a process
 * is attempting it, is superseded by it (the receiver gets the newer content rather than both).
 */
export async function enqueueDelivery(db: Db, row: Insertable<DeliveriesTable>): Promise<void> {
  if (row.level && row.period_start) {
    await db
      .updateTable('deliveries')
      .set({ status: 'superseded', finished_at: row.created_at, lease_until: null })
      .where('destination_id', '=', row.destination_id)
      .where('level', '=', row.level)
      .where('period_start', '=', row.period_start)
      .where('status', '=', 'pending')
      // Not one a process is attempting right now: it may arrive, and then so does the new one.
      .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', row.created_at)]))
      .execute();
  }
  await db.insertInto('deliveries').values(row).execute();
}

/**
 * Takes up to `limit` due deliveries of enabled destinations for `leaseMs`: until then no other
 * process takes them. PostgreSQL skips rows another process is claiming (`FOR UPDATE SKIP
 * LOCKED`); SQLite runs one writer at a time. A process that dies holding a lease leaves the
 * delivery to be taken again when the lease ends.
 */
export async function claimDue(
  storage: Storage,
  now: number,
  limit: number,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  const due = (db: Db) => {
    const query = db
      .selectFrom('deliveries')
      .innerJoin('destinations', 'destinations.id', 'deliveries.destination_id')
      .select('deliveries.id')
      .where('deliveries.status', '=', 'pending')
      .where('deliveries.next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('deliveries.lease_until', 'is', null), eb('deliveries.lease_until', '<=', now)]))
      .where('destinations.enabled', '=', 1)
      .orderBy('deliveries.next_attempt_at')
      .limit(limit);
    return storage.dialect === 'postgres' ? query.forUpdate('deliveries').skipLocked() : query;
  };
  // A look without locks first: most polls find nothing, and need no write transaction.
  if ((await due(storage.db).execute()).length === 0) return [];
  const ids = await writeTransaction(storage, async (trx) => {
    const rows = await due(trx).execute();
    const claimed = rows.map((r) => r.id);
    if (claimed.length) {
      await trx
        .updateTable('deliveries')
        .set({ lease_until: now + leaseMs })
        .where('id', 'in', claimed)
        .execute();
    }
    return claimed;
  });
  if (!ids.length) return [];
  const rows = await storage.db
    .selectFrom('deliveries')
    .innerJoin('destinations', 'destinations.id', 'deliveries.destination_id')
    .select([
      'deliveries.id',
      'deliveries.destination_id',
      'destinations.user_id',
      'deliveries.event',
      'deliveries.body',
      'deliveries.attempts',
      'deliveries.created_at',
      'destinations.kind',
      'destinations.url',
      'destinations.secret',
    ])
    .where('deliveries.id', 'in', ids)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    destinationId: r.destination_id,
    userId: r.user_id,
    event: r.event,
    body: r.body,
    attempts: r.attempts,
    createdAt: r.created_at,
    kind: r.kind,
    url: r.url,
    secret: r.secret,
  }));
}

/** Gives a claimed delivery back untried (the process is stopping). */
export async function releaseLease(db: Db, id: string): Promise<void> {
  await db.updateTable('deliveries').set({ lease_until: null }).where('id', '=', id).execute();
}

/** Adds one to the delivery's attempts and returns the new count; null when the delivery is gone. */
export async function countAttempt(db: Db, id: string): Promise<number | null> {
  const row = await db
    .updateTable('deliveries')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .returning('attempts')
    .executeTakeFirst();
  return row ? row.attempts : null;
}

export async function insertAttempt(db: Db, row: AttemptRow): Promise<void> {
  await db.insertInto('delivery_attempts').values(row).execute();
}

export async function updateDelivery(db: Db, id: string, changes: Updateable<DeliveriesTable>): Promise<void> {
  await db.updateTable('deliveries').set(changes).where('id', '=', id).execute();
}

/** The destination's attempts, newest first, with the delivery each belongs to. */
export async function recentAttempts(db: Db, destinationId: string, limit: number) {
  return db
    .selectFrom('delivery_attempts')
    .innerJoin('deliveries', 'deliveries.id', 'delivery_attempts.delivery_id')
    .select([
      'delivery_attempts.delivery_id',
      'delivery_attempts.attempt',
      'delivery_attempts.attempted_at',
      'delivery_attempts.duration_ms',
      'delivery_attempts.outcome',
      'delivery_attempts.status_code',
      'delivery_attempts.error',
      'delivery_attempts.response_excerpt',
      'deliveries.event',
      'deliveries.level',
      'deliveries.period_start',
      'deliveries.status',
      'deliveries.next_attempt_at',
    ])
    .where('delivery_attempts.destination_id', '=', destinationId)
    .orderBy('delivery_attempts.attempted_at', 'desc')
    .orderBy('delivery_attempts.delivery_id', 'desc')
    .orderBy('delivery_attempts.attempt', 'desc')
    .limit(limit)
    .execute();
}

/** Forgets finished deliveries (and their attempts) that finished before `before`. */
export async function pruneFinished(db: Db, before: number): Promise<number> {
  const old = db
    .selectFrom('deliveries')
    .select('id')
    .where('status', '!=', 'pending')
    .where('finished_at', '<', before);
  await db.deleteFrom('delivery_attempts').where('delivery_id', 'in', old).execute();
  const result = await db
    .deleteFrom('deliveries')
    .where('status', '!=', 'pending')
    .where('finished_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
