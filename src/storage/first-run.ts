/** The record, in daybook_meta, that a database has had its first start. */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

const FIRST_RUN = 'first_run';

/**
 * Marks the first start as taken. True for exactly one caller per database, even when several
 * processes start at the same moment.
 */
export async function claimFirstRun(db: Kysely<Database>, at: number): Promise<boolean> {
  const result = await db
    .insertInto('daybook_meta')
    .values({ key: FIRST_RUN, value: JSON.stringify({ startedAt: new Date(at).toISOString(), outcome: 'in progress' }) })
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
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
