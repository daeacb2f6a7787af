/**
 * The Discord summary: one embed object inside Discord's limits: title ≤ 256, description
 * ≤ 4096, ≤ 25 fields (name ≤ 256, value ≤ 1024), footer ≤ 2048, all text together ≤ 6000.
 * User text has Discord's markdown characters backslash-escaped.
 */
import type { DiscordEmbed } from '../../schemas/message.ts';
import { formatDuration } from './durations.ts';
import { clip, fitLines } from './fit-text.ts';
import { type Summary, categoryName, changeLine, periodLabel, shortDate, taskName, totalLine } from './summary.ts';

const DISCORD_LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  total: 6000,
} as const;

/** Daybook's accent colour, #6C63FF. */
const COLOR = 0x6c63ff;
const ITEM_CHARS = 300;

function escapeDiscordMarkdown(text: string): string {
  return text.replace(/[\\*_~`|<>[\]#]/g, '\\$&');
}

const italic = (text: string) => `*${text}*`;

function bullets(items: { label: string; minutes: number }[]): string[] {
  return items.map(
    (item) => `• ${escapeDiscordMarkdown(clip(item.label, ITEM_CHARS))} — ${formatDuration(item.minutes)}`,
  );
}

export function renderDiscord(summary: Summary, subject: string): DiscordEmbed {
  const fields: DiscordEmbed['fields'] = [];
  const addField = (name: string, lines: string[], inline: boolean) => {
    if (lines.length > 0) fields.push({ name, value: fitLines(lines, DISCORD_LIMITS.fieldValue, italic), inline });
  };
  addField('Projects', bullets(summary.projects.map((p) => ({ label: p.name, minutes: p.minutes }))), true);
  addField(
    'Categories',
    bullets(summary.categories.map((c) => ({ label: categoryName(c), minutes: c.minutes }))),
    true,
  );
  addField(
    'Comments',
    summary.comments.map((c) => `**${shortDate(c.date)}:** ${escapeDiscordMarkdown(clip(c.comment, ITEM_CHARS))}`),
    false,
  );

  // The subject holds the user's name: escaped like all user text (Discord renders markdown in
  // titles); metadata.subject stays plain.
  const title = clip(escapeDiscordMarkdown(subject), DISCORD_LIMITS.title);
  const footer = { text: `Daybook · ${periodLabel(summary)} · ${summary.timezone}` };
  const used = title.length + footer.text.length + fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
  // The tasks take whatever the other parts leave of the embed's total.
  const room = Math.min(DISCORD_LIMITS.description, DISCORD_LIMITS.total - used);
  const head = `**${totalLine(summary)}**\n${changeLine(summary)}`;
  const taskLines = bullets(summary.tasks.map((t) => ({ label: taskName(t), minutes: t.minutes })));
  const heading = '\n\n**Tasks**\n';
  const tasks = taskLines.length > 0 ? heading + fitLines(taskLines, room - head.length - heading.length, italic) : '';
  return { title, description: head + tasks, color: COLOR, fields, footer };
}
