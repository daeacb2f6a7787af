/**
 * The HTML summary: a self-contained fragment (inline styles, no scripts, no external
 * resources) to drop into an e-mail or a page. Every user string is escaped.
 */
import escapeHtml from 'escape-html';
import { formatDuration } from './durations.ts';
import { type Summary, categoryName, changeLine, shortDate, taskName, totalLine } from './summary.ts';

const CELL = 'padding:2px 12px 2px 0;vertical-align:top';

function table(title: string, items: { label: string; minutes: number }[]): string {
  if (items.length === 0) return '';
  const rows = items
    .map(
      (item) =>
        `<tr><td style="${CELL}">${escapeHtml(item.label)}</td>` +
        `<td style="${CELL};text-align:right;white-space:nowrap">${formatDuration(item.minutes)}</td></tr>`,
    )
    .join('\n');
  return `<h3 style="margin:16px 0 4px;font-size:15px">${title}</h3>\n<table style="border-collapse:collapse">\n${rows}\n</table>\n`;
}

function comments(summary: Summary): string {
  if (summary.comments.length === 0) return '';
  const items = summary.comments
    .map(
      (c) =>
        `<dt style="font-weight:bold">${shortDate(c.date)}</dt>` +
        `<dd style="margin:0 0 8px;white-space:pre-line">${escapeHtml(c.comment)}</dd>`,
    )
    .join('\n');
  return `<h3 style="margin:16px 0 4px;font-size:15px">Comments</h3>\n<dl style="margin:0">\n${items}\n</dl>\n`;
}

export function renderHtml(summary: Summary, subject: string): string {
  return (
    `<section class="daybook-summary" style="font-family:Arial,Helvetica,sans-serif;font-size:14px;line-height:1.4;color:#222">\n` +
    `<h2 style="margin:0 0 8px;font-size:18px">${escapeHtml(subject)}</h2>\n` +
    `<p style="margin:0 0 8px"><strong>${totalLine(summary)}</strong><br>${changeLine(summary)}</p>\n` +
    table(
      'Projects',
      summary.projects.map((p) => ({ label: p.name, minutes: p.minutes })),
    ) +
    table(
      'Categories',
      summary.categories.map((c) => ({ label: categoryName(c), minutes: c.minutes })),
    ) +
    table(
      'Tasks',
      summary.tasks.map((t) => ({ label: taskName(t), minutes: t.minutes })),
    ) +
    comments(summary) +
    `</section>\n`
  );
}
