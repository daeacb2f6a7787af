/** Writes of day comments (see writes.ts). */
import type { Insertable } from 'kysely';
import { textList } from './text-list.ts';
import type { DayCommentsTable } from './schema.ts';
import type { WriteSession } from './writes.ts';

export type DayCommentRow = Insertable<DayCommentsTable>;

/** Sets each user's comment on each date; of rows for the same user and date, the last wins. */
export async function upsertDayComments(session: WriteSession, rows: DayCommentRow[]): Promise<void> {
  if (rows.length === 0) return;
  const unique = [...new Map(rows.map((c) => [`${c.user_id}\u0000${c.date}`, c])).values()];
  await session.db
    .insertInto('day_comments')
    .values(unique.map((c) => ({ user_id: c.user_id, date: c.date, comment: c.comment })))
    .onConflict((oc) => oc.columns(['user_id', 'date']).doUpdateSet((eb) => ({ comment: eb.ref('excluded.comment') })))
    .execute();
  session.daysChanged(unique.map((c) => ({ user_id: c.user_id, local_date: c.date })));
}

/** Removes the user's comments on these dates (those it has). */
export async function deleteDayComments(
  session: WriteSession,
  userId: string,
  dates: readonly string[],
): Promise<void> {
  if (dates.length === 0) return;
  const deleted = await session.db
    .deleteFrom('day_comments')
    .where('user_id', '=', userId)
    .where('date', 'in', textList(session.db, dates))
    .returning(['user_id', 'date'])
    .execute();
  session.daysChanged(deleted.map((c) => ({ user_id: c.user_id, local_date: c.date })));
}
