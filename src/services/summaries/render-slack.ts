/**
 * The Slack summary: an array of Block Kit blocks (header, sections, divider, context) inside
 * Slack's limits: at most 50 blocks, header text ≤ 150 characters, section text ≤ 3000.
 * User text goes into mrkdwn with `&`, `<` and `>` escaped, so it can never form a link or a
 * mention. Slack's mrkdwn has no escape for `*`, `_` or `~`; such characters in a title
 * keep their formatting meaning.
 */
import type { SlackBlock } from '../../schemas/message.ts';
import { formatDuration } from './durations.ts';
import { clip, fitLines } from './fit-text.ts';
import { type Summary, categoryName, changeLine, periodLabel, shortDate, taskName, totalLine } from './summary.ts';

const SLACK_LIMITS = { blocks: 50, headerText: 150, sectionText: 3000, contextElements: 10 } as const;

/** Longest user string shown in one list line, before escaping. */
const ITEM_CHARS = 300;

function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function section(text: string): SlackBlock {
  return { type: 'section', text: { type: 'mrkdwn', text } };
}

function listSection(title: string, items: { label: string; minutes: number }[]): SlackBlock[] {
  if (items.length === 0) return [];
  const heading = `*${title}*\n`;
  const lines = items.map(
    (item) => `• ${escapeMrkdwn(clip(item.label, ITEM_CHARS))} — ${formatDuration(item.minutes)}`,
  );
  return [section(heading + fitLines(lines, SLACK_LIMITS.sectionText - heading.length, (more) => `_${more}_`))];
}

export function renderSlack(summary: Summary, subject: string): SlackBlock[] {
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: clip(subject, SLACK_LIMITS.headerText), emoji: true } },
    section(`*${totalLine(summary)}*\n${changeLine(summary)}`),
    { type: 'divider' },
    ...listSection(
      'Projects',
      summary.projects.map((p) => ({ label: p.name, minutes: p.minutes })),
    ),
    ...listSection(
      'Categories',
      summary.categories.map((c) => ({ label: categoryName(c), minutes: c.minutes })),
    ),
    ...listSection(
      'Tasks',
      summary.tasks.map((t) => ({ label: taskName(t), minutes: t.minutes })),
    ),
  ];
  if (summary.comments.length > 0) {
    const heading = '*Comments*\n';
    const lines = summary.comments.map((c) => `*${shortDate(c.date)}:* ${escapeMrkdwn(clip(c.comment, ITEM_CHARS))}`);
    blocks.push(section(heading + fitLines(lines, SLACK_LIMITS.sectionText - heading.length, (more) => `_${more}_`)));
  }
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: escapeMrkdwn(`Daybook · ${periodLabel(summary)} · ${summary.timezone}`) }],
  });
  return blocks;
}
