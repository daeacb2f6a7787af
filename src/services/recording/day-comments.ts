/** POST /day-comments (docs/api.md, "Recording work"): the caller's comment on a local date. */
import type { Storage } from '../../storage/database.ts';
import { deleteDayComments, upsertDayComments } from '../../storage/day-comments.ts';
import { writeRecords } from '../../storage/writes.ts';
import type { DayCommentBody } from '../../schemas/tasks.ts';

/** Sets the comment, or removes it when `comment` is "". */
export async function setDayComment(
  storage: Storage,
  userId: string,
  body: DayCommentBody,
  clock: () => number,
): Promise<DayCommentBody> {
  await writeRecords(storage, { clock }, (session) =>
    body.comment === ''
      ? deleteDayComments(session, userId, [body.date])
      : upsertDayComments(session, [{ user_id: userId, date: body.date, comment: body.comment }]),
  );
  return { date: body.date, comment: body.comment };
}
