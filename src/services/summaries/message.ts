/**
 * `/message`: the stored summary of the period containing a date, rendered in the requested
 * format (docs/api.md, "GET / POST /message"). A lookup plus rendering; summaries are built by the generator.
 */
import type { Kysely } from 'kysely';
import { ApiError } from '../../errors.ts';
import { addDays, localDateOf } from '../../lib/time.ts';
import type { Payload } from '../../schemas/common.ts';
import type { MessageParams, MessageResponse } from '../../schemas/message.ts';
import { displayNameOf, type UserRow } from '../../storage/accounts.ts';
import type { Database } from '../../storage/schema.ts';
import { findSummaryContent } from '../../storage/summaries.ts';
import { periodOf } from './periods.ts';
import { renderDiscord } from './render-discord.ts';
import { renderHtml } from './render-html.ts';
import { renderSlack } from './render-slack.ts';
import { renderText } from './render-text.ts';
import { firstNameOf, type Summary, subjectOf } from './summary.ts';

export const FORMATS = ['html', 'text', 'slack', 'discord'] as const;
type Format = (typeof FORMATS)[number];

export type Message = Payload<MessageResponse>;

const NO_SUMMARY = 'No summary exists for this date and level yet.';

function renderSummary(summary: Summary, format: Format, subject: string): Message {
  const render = { html: renderHtml, text: renderText, slack: renderSlack, discord: renderDiscord }[format];
  return { level: summary.level, format, content: render(summary, subject), metadata: { subject } };
}

/** The stored summary of the period containing the date (default yesterday, level day), and its subject line. */
export async function readSummary(
  db: Kysely<Database>,
  user: UserRow,
  params: Pick<MessageParams, 'date' | 'level'>,
  now: number,
): Promise<{ summary: Summary; subject: string }> {
  const yesterday = addDays(localDateOf(now, user.timezone), -1);
  // The route's schema has checked the date and the names (schemas/message.ts).
  const date = params.date ?? yesterday;
  const level = params.level ?? 'day';

  const period = periodOf(level, date, user.week_start);
  // A summary exists once its period has ended locally (docs/api.md, "GET / POST /message"). One built before its
  // owner moved to a timezone where the period has not ended yet waits until it has.
  if (period.end > yesterday) throw new ApiError(404, NO_SUMMARY);
  const stored = await findSummaryContent(db, user.id, period.level, period.start);
  if (stored === undefined) throw new ApiError(404, NO_SUMMARY);
  const summary = JSON.parse(stored) as Summary;
  return { summary, subject: subjectOf(summary, firstNameOf(displayNameOf(user))) };
}

export async function readMessage(
  db: Kysely<Database>,
  user: UserRow,
  params: MessageParams,
  now: number,
): Promise<Message> {
  const { summary, subject } = await readSummary(db, user, params, now);
  return renderSummary(summary, params.format ?? 'html', subject);
}
