/** Write-side upkeep of activity data shared by import and account changes. */
import { type Kysely, sql, type Transaction } from 'kysely';
import { localDateOf } from '../lib/time.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

/** Records that these users' local days changed, so summaries covering them are rebuilt. */
export async function markChangedDays(db: Db, days: { userId: string; date: string }[], at: number): Promise<void> {
  for (let i = 0; i < days.length; i += 500) {
    await db
      .insertInto('changed_days')
      .values(days.slice(i, i + 500).map((d) => ({ user_id: d.userId, local_date: d.date, changed_at: at })))
      .onConflict((oc) => oc.columns(['user_id', 'local_date']).doUpdateSet({ changed_at: at }))
      .execute();
  }
}

/** A user's timezone changed: every activity moves to its local day in the new zone. */
export async function recomputeLocalDates(db: Db, userId: string, timezone: string, at: number): Promise<void> {
  const changed = new Set<string>();
  let after = '';
  for (;;) {
    const rows = await db
      .selectFrom('activities')
      .select(['id', 'start', 'local_date'])
      .where('user_id', '=', userId)
      .where('id', '>', after)
      .orderBy('id')
      .limit(1000)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      const date = localDateOf(row.start, timezone);
      if (date !== row.local_date) {
        changed.add(row.local_date).add(date);
        await db.updateTable('activities').set({ local_date: date }).where('id', '=', row.id).execute();
      }
    }
    after = rows[rows.length - 1]!.id;
  }
  await markChangedDays(db, [...changed].map((date) => ({ userId, date })), at);
}

/** Tasks imported without `createdAt` take the start of their first activity. */
export async function refreshAutoTaskCreatedAt(db: Db): Promise<void> {
  await sql`
    update tasks set created_at = (select min(a.start) from activities a where a.task_id = tasks.id)
    where created_at_auto = 1
      and exists (select 1 from activities a where a.task_id = tasks.id)
      and created_at <> (select min(a.start) from activities a where a.task_id = tasks.id)
  `.execute(db);
}
