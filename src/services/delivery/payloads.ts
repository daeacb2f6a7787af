/**
 * What each kind of destination is sent (docs/delivery.md, "Payloads"): Slack a message of Block
 * Kit blocks, Discord one embed that may mention no one, and a generic webhook the summary in
 * every format with its metadata and the event type, in the Standard Webhooks envelope
 * `{type, timestamp, data}`.
 */
import { addDays, localDateOf } from '../../lib/time.ts';
import type { DestinationsTable } from '../../storage/schema.ts';
import { renderDiscord } from '../summaries/render-discord.ts';
import { renderHtml } from '../summaries/render-html.ts';
import { renderSlack } from '../summaries/render-slack.ts';
import { renderText } from '../summaries/render-text.ts';
import type { Summary } from '../summaries/summary.ts';

export type DeliveryEvent = 'summary.created' | 'summary.updated' | 'destination.test';

export interface SummaryDelivery {
  event: DeliveryEvent;
  userId: string;
  summary: Summary;
  subject: string;
  /** When the summary was built (or the test sent), Unix ms. */
  at: number;
}

/** The body for one kind of destination, as the JSON text sent on every attempt. */
export function deliveryBody(kind: DestinationsTable['kind'], d: SummaryDelivery): string {
  switch (kind) {
    case 'slack':
      // `text` is what notifications and clients without blocks show.
      return JSON.stringify({ text: d.subject, blocks: renderSlack(d.summary, d.subject) });
    case 'discord':
      // User text never pings anyone, whatever it holds (@everyone, <@id>).
      return JSON.stringify({ embeds: [renderDiscord(d.summary, d.subject)], allowed_mentions: { parse: [] } });
    case 'webhook': {
      const { summary } = d;
      return JSON.stringify({
        type: d.event,
        timestamp: new Date(d.at).toISOString(),
        data: {
          userId: d.userId,
          level: summary.level,
          start: summary.start,
          end: summary.end,
          timezone: summary.timezone,
          subject: d.subject,
          totalMinutes: summary.totalMinutes,
          trackedDays: summary.trackedDays,
          builtAt: new Date(d.at).toISOString(),
          formats: {
            html: renderHtml(summary, d.subject),
            text: renderText(summary, d.subject),
            slack: renderSlack(summary, d.subject),
            discord: renderDiscord(summary, d.subject),
          },
          summary,
        },
      });
    }
  }
}

/**
 * The summary a test delivery carries: yesterday in the user's timezone, with made-up projects
 * and tasks, so a destination can be tried before it has real summaries to receive.
 */
export function sampleSummary(now: number, timezone: string): Summary {
  const day = addDays(localDateOf(now, timezone), -1);
  return {
    level: 'day',
    start: day,
    end: day,
    timezone,
    totalMinutes: 435,
    trackedDays: 1,
    previous: { start: addDays(day, -1), end: addDays(day, -1), totalMinutes: 400 },
    projects: [
      { name: 'Sample project', minutes: 300 },
      { name: 'Another project', minutes: 135 },
    ],
    categories: [
      { name: 'Development', emoji: '💻', minutes: 315 },
      { name: 'Meetings', emoji: null, minutes: 120 },
    ],
    tasks: [
      { title: 'A test delivery from Daybook', project: 'Sample project', minutes: 300 },
      { title: 'Planning', project: 'Another project', minutes: 135 },
    ],
    comments: [{ date: day, comment: 'This is a test: real summaries arrive here when they are built.' }],
  };
}
