/** Each user's delivery destinations (docs/delivery.md). */
import type { Kysely, Selectable, Transaction, Updateable } from 'kysely';
import type { Database, DestinationsTable } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export type DestinationRow = Selectable<DestinationsTable>;

export async function listDestinations(db: Db, userId: string): Promise<DestinationRow[]> {
  return db
    .selectFrom('destinations')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** The user's destination with this id; another user's is not found. */
export async function findDestination(db: Db, userId: string, id: string): Promise<DestinationRow | undefined> {
  return db
    .selectFrom('destinations')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Whether any user has a destination of this id. */
export async function destinationExists(db: Db, id: string): Promise<boolean> {
  return (await db.selectFrom('destinations').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

export async function countDestinations(db: Db, userId: string): Promise<number> {
  const row = await db
    .selectFrom('destinations')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('user_id', '=', userId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertDestination(db: Db, row: DestinationRow): Promise<void> {
  await db.insertInto('destinations').values(row).execute();
}

export async function updateDestination(
  db: Db,
  userId: string,
  id: string,
  changes: Updateable<DestinationsTable>,
): Promise<void> {
  await db.updateTable('destinations').set(changes).where('id', '=', id).where('user_id', '=', userId).execute();
}

/** Removes the destination with its deliveries and their attempts; false when the user has none of that id. */
export async function deleteDestination(db: Db, userId: string, id: string): Promise<boolean> {
  const found = await findDestination(db, userId, id);
  if (!found) return false;
  // Explicitly, not only by the foreign keys' cascade: SQLite enforces it only with foreign_keys on.
  await db.deleteFrom('delivery_attempts').where('destination_id', '=', id).execute();
  await db.deleteFrom('deliveries').where('destination_id', '=', id).execute();
  await db.deleteFrom('destinations').where('id', '=', id).execute();
  return true;
}

/** The user's enabled destinations that take summaries of `level`. */
export async function destinationsForLevel(db: Db, userId: string, level: string): Promise<DestinationRow[]> {
  const rows = await db
    .selectFrom('destinations')
    .selectAll()
    .where('user_id', '=', userId)
    .where('enabled', '=', 1)
    .execute();
  return rows.filter((row) => row.levels.split(',').includes(level));
}

/** After a delivered attempt: no longer failing. */
export async function markDelivered(db: Db, id: string, now: number): Promise<void> {
  await db
    .updateTable('destinations')
    .set({ failing_since: null, last_delivered_at: now })
    .where('id', '=', id)
    .execute();
}

/** After a failed attempt: failing since the first failure after the last delivery, returned. */
export async function markFailing(db: Db, id: string, now: number): Promise<number> {
  await db
    .updateTable('destinations')
    .set({ failing_since: now })
    .where('id', '=', id)
    .where('failing_since', 'is', null)
    .execute();
  const row = await db.selectFrom('destinations').select('failing_since').where('id', '=', id).executeTakeFirst();
  return row?.failing_since ?? now;
}

/** Stops deliveries to the destination until its user enables it again, saying why. */
export async function disableDestination(db: Db, id: string, now: number, reason: string): Promise<void> {
  await db
    .updateTable('destinations')
    .set({ enabled: 0, disabled_reason: reason, disabled_at: now, updated_at: now })
    .where('id', '=', id)
    .execute();
}
