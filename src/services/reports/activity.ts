/**
 * Activity rows (docs/api.md, "POST /report"): one per activity of the caller, `activity:<id>`, or
 * `minute:<id>` when asked for by the legacy level name. Never team rows.
 *
 * A 90-day export holds thousands of rows (several MB of JSON). They are read from the
 * database already in the order of the response, one at a time, and each is written as JSON
 * straight into UTF-8 Buffer chunks, so a request holds neither its rows as objects nor its body
 * as one string: the V8 heap sees one row at a time, and the body lives outside it.
 */
import { Utf8Chunks } from '../../lib/utf8-chunks.ts';
import { DAY_MS, localTimeFormatter, offsetAt } from '../../lib/time.ts';
import type { Storage } from '../../storage/database.ts';
import { type ActivityDetail, type ActivityOrder, eachActivity } from '../../storage/reports.ts';
import type { ReportRequest } from './request.ts';
import type { ActivityRow } from '../../schemas/report.ts';

/** A whole response body, `{"success":true,"rowCount":N,"rows":[…]}`, encoded as UTF-8. */
export class EncodedReport {
  readonly chunks: Buffer[];
  readonly byteLength: number;

  constructor(chunks: Buffer[], byteLength: number) {
    this.chunks = chunks;
    this.byteLength = byteLength;
  }
}

/**
 * The activity report of `user` as the bytes of `JSON.stringify({success: true, rowCount,
 * rows})` with the rows of docs/api.md, "POST /report" in their order: the same text, key for key and
 * escape for escape. The rows are counted as they are written and the head is put in front
 * last; they come from one query on one snapshot, so the count is theirs.
 */
export async function encodeActivityReport(
  storage: Storage,
  request: ReportRequest,
  user: { id: string; timezone: string },
  chunkBytes?: number,
): Promise<EncodedReport> {
  const toRow = activityRowBuilder(request, user.timezone);
  const out = new Utf8Chunks(chunkBytes);
  let rowCount = 0;
  const order: ActivityOrder = request.sort ?? 'id';
  const query = { userId: user.id, from: request.from, to: request.to, projectIds: request.projectIds ?? undefined };
  await eachActivity(storage, query, order, (activity) => {
    const json = JSON.stringify(toRow(activity));
    out.write(rowCount === 0 ? json : `,${json}`);
    rowCount++;
  });
  out.write(']}');
  out.prepend(`{"success":true,"rowCount":${rowCount},"rows":[`);
  const byteLength = out.byteLength;
  return new EncodedReport(out.finish(), byteLength);
}

/** The row of one stored activity; the keys in the order of the response schema. */
function activityRowBuilder(request: ReportRequest, timezone: string): (a: ActivityDetail) => ActivityRow {
  const localTime = localClock(timezone);
  const prefix = `${request.activityIdPrefix}:`;
  const { includeProjects, includeCategories } = request;
  return (a) => {
    const row: ActivityRow = {
      id: prefix + a.id,
      timestamp: a.start,
      timestampIso: new Date(a.start).toISOString(),
      time: localTime(a.start),
      duration: a.durationMinutes,
      headline: a.headline,
      description: a.description,
      task: a.taskTitle,
      task_id: a.taskId,
    };
    if (includeProjects) {
      row.project = a.projectName;
      row.project_id = a.projectId;
    }
    if (includeCategories) {
      row.category = a.categoryName;
      row.category_emoji = a.categoryEmoji;
    }
    return row;
  };
}

/**
 * Local `HH:MM` for instants that come mostly in time order. Within a local day without an
 * offset change the time is the distance from its midnight, so a zone is consulted once per
 * day rather than per activity; a day with a change is left to the Intl formatter.
 */
function localClock(timezone: string): (ms: number) => string {
  const format = localTimeFormatter(timezone);
  let dayStart = 0;
  let dayEnd = -1;
  return (ms) => {
    if (ms < dayStart || ms >= dayEnd) {
      const offset = offsetAt(ms, timezone);
      const midnight = ms - ((((ms + offset) % DAY_MS) + DAY_MS) % DAY_MS);
      if (offsetAt(midnight, timezone) !== offset || offsetAt(midnight + DAY_MS - 1, timezone) !== offset)
        return format(ms);
      dayStart = midnight;
      dayEnd = midnight + DAY_MS;
    }
    const minutes = Math.floor((ms - dayStart) / 60_000);
    const hours = Math.floor(minutes / 60);
    const rest = minutes % 60;
    return `${hours < 10 ? '0' : ''}${hours}:${rest < 10 ? '0' : ''}${rest}`;
  };
}
