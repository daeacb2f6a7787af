/**
 * Rules every write route of docs/api.md's "Recording work" shares: how an instant is read, the
 * blank rule, how far into the future work may end, and who may log time to which project.
 */
import { type ApiError, badRequest, forbidden, shown } from '../../errors.ts';
import { isBlank } from '../../lib/blank.ts';
import { daysInMonth } from '../../lib/time.ts';
import type { ProjectForLogging } from '../../storage/projects.ts';
import { START_RULE, TITLE_RULE } from '../../schemas/record-fields.ts';
import { canSeeProject, mayLogTime, type Viewer } from '../projects/access.ts';

/** How far past the present recorded work may end (clocks differ a little). */
const FUTURE_SLACK_MS = 5 * 60_000;

/** A caller's value as a message quotes it. */
export const quoted = (value: string) => JSON.stringify(shown(value));

/** A title or headline of white space alone is refused like an empty one. */
export function checkTitle(text: string, field: string): void {
  if (isBlank(text)) throw badRequest(`${field} ${TITLE_RULE}`);
}

/** An instant the schema let through (an ISO 8601 text with an offset, or Unix ms) as Unix ms. */
export function readInstant(value: string | number, field: string): number {
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (!Number.isFinite(ms) || (typeof value === 'string' && !realDate(value)))
    throw badRequest(`${field} ${START_RULE}`);
  return ms;
}

/**
 * Date.parse rolls 2026-02-30 over to March: the written date and time (YYYY-MM-DDTHH:MM[:SS],
 * as the schema's pattern has it) must be real ones. Years below 100 are refused, as they were
 * when this went through Date.UTC (which reads them as 19xx).
 */
function realDate(text: string): boolean {
  const y = Number(text.slice(0, 4));
  const m = Number(text.slice(5, 7));
  const d = Number(text.slice(8, 10));
  const seconds = text.length > 17 && text[16] === ':' ? Number(text.slice(17, 19)) : 0;
  const days = daysInMonth(y, m);
  return (
    y >= 100 &&
    d >= 1 &&
    d <= days &&
    Number(text.slice(11, 13)) < 24 &&
    Number(text.slice(14, 16)) < 60 &&
    seconds < 60
  );
}

/** Work ending at `end` lies no more than 5 minutes in the future, else a 400 naming `field`. */
export function checkNotFuture(end: number, now: number, field: string, what = 'the activity'): void {
  if (end > now + FUTURE_SLACK_MS)
    throw badRequest(`${field} must not make ${what} end more than 5 minutes in the future`);
}

/**
 * The caller may log time to `project` (found under `id`, or undefined): one it can see (else
 * the `unknown` answer), not archived, and listing it among `contributorIds` where there are any.
 */
export function checkLoggable(
  project: ProjectForLogging | undefined,
  viewer: Viewer,
  unknown: () => ApiError,
): asserts project is ProjectForLogging {
  if (!project || !canSeeProject(project, viewer)) throw unknown();
  const refusal = loggingRefusal(project, viewer);
  if (refusal) throw refusal;
}

/** Why the caller may not log time to a project it can see, or null when it may. */
export function loggingRefusal(project: ProjectForLogging, viewer: Viewer): ApiError | null {
  if (project.archived) return badRequest(`Project is archived: ${quoted(project.id)}`);
  if (!mayLogTime(project, viewer)) return forbidden(`Not a contributor of project: ${quoted(project.id)}`);
  return null;
}
