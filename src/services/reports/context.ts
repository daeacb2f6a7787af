/**
 * What every report level needs to turn time into rows: the request, whose time it is, the
 * labels (with the privacy rules), and the team additions of docs/api.md, "POST /report" (ids gain the user,
 * rows carry `user` and `user_email`).
 */
import { displayNameOf } from '../../storage/accounts.ts';
import type { ReportUser } from '../../storage/reports.ts';
import type { ReportLabels } from './labels.ts';
import type { ReportRequest } from './request.ts';
import type { ReportRow } from '../../schemas/report.ts';
import { compareText } from './tally.ts';

export interface ReportContext {
  request: ReportRequest;
  labels: ReportLabels;
  /** The people whose time is reported, by id: the caller alone, or the members of the teams. */
  people: Map<string, ReportUser>;
  /** True when the report covers teams (teamIds). */
  team: boolean;
}

/** A row with the instant or local date it is sorted by under `sort: asc|desc`. */
export interface TimedRow<R extends ReportRow = ReportRow> {
  row: R;
  time: number | string;
}

/** `day:<date>` in a personal report, `day:<date>:<userId>` in a team report. */
export function personalId(context: ReportContext, base: string, userId: string): string {
  return context.team ? `${base}:${userId}` : base;
}

/** `user` (the /user name) and `user_email` of a team row; nothing in a personal report. */
export function ownerFields(context: ReportContext, userId: string): { user?: string; user_email?: string } {
  if (!context.team) return {};
  const person = context.people.get(userId);
  if (!person) return {};
  return { user: displayNameOf(person), user_email: person.email };
}

/**
 * docs/api.md, "POST /report": with `sort`, by time in that direction and ties by id ascending; without
 * it, by id as a plain string comparison.
 */
export function sortRows(rows: TimedRow[], sort: ReportRequest['sort']): ReportRow[] {
  const byId = (a: TimedRow, b: TimedRow) => compareText(a.row.id, b.row.id);
  if (sort === null) return rows.sort(byId).map((r) => r.row);
  const direction = sort === 'asc' ? 1 : -1;
  return rows
    .sort((a, b) => {
      const byTime = a.time < b.time ? -1 : a.time > b.time ? 1 : 0;
      return direction * byTime || byId(a, b);
    })
    .map((r) => r.row);
}
