/** The record, in daybook_meta, that a database has had its first start. */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

const FIRST_RUN = 'first_run';

/** A claim still `in progress` after this long belongs to a start that was cut off. */
export const FIRST_RUN_STALE_MS = 2 * 60_000;

/**
 * Marks the first start as taken. True for exactly one caller per database, even when several
 * processes start at the same moment. A first start killed half-way (its demo import rolled
 * back) leaves its claim `in progress`: once that is FIRST_RUN_STALE_MS old and the database
 * still has no users, a later start takes it over, again for exactly one caller.
 */
export async function claimFirstRun(db: Kysely<Database>, at: number): Promise<boolean> {
  const value = JSON.stringify({ startedAt: new Date(at).toISOString(), outcome: 'in progress' });
  const result = await db
    .insertInto('daybook_meta')
    .values({ key: FIRST_RUN, value })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  if (Number(result.numInsertedOrUpdatedRows ?? 0) > 0) return true;
  const held = await readFirstRun(db);
  if (held === null) return false;
  const claim = JSON.parse(held) as { startedAt?: string; outcome?: string };
  if (claim.outcome !== 'in progress' || at - Date.parse(claim.startedAt ?? '') < FIRST_RUN_STALE_MS) return false;
  if (await hasUsers(db)) return false;
  // Compare and set: of several starts that find the same stale claim, one replaces it.
  const taken = await db
    .updateTable('daybook_meta')
    .set({ value })
    .where('key', '=', FIRST_RUN)
    .where('value', '=', held)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) > 0;
}

export async function recordFirstRun(db: Kysely<Database>, at: number, outcome: string): Promise<void> {
  await db
    .updateTable('daybook_meta')
    .set({ value: JSON.stringify({ startedAt: new Date(at).toISOString(), outcome }) })
    .where('key', '=', FIRST_RUN)
    .execute();
}

/** Gives the first start back, after it failed half-way. */
export async function releaseFirstRun(db: Kysely<Database>): Promise<void> {
  await db.deleteFrom('daybook_meta').where('key', '=', FIRST_RUN).execute();
}

export async function readFirstRun(db: Kysely<Database>): Promise<string | null> {
  const row = await db.selectFrom('daybook_meta').select('value').where('key', '=', FIRST_RUN).executeTakeFirst();
  return row?.value ?? null;
}

export async function hasUsers(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
}
