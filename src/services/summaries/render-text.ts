/** The plain-text summary: every item, no markup. */
import { formatDuration } from './durations.ts';
import { type Summary, categoryName, changeLine, shortDate, taskName, totalLine } from './summary.ts';

function list(title: string, items: { label: string; minutes: number }[]): string[] {
  if (items.length === 0) return [];
  return ['', title, ...items.map((item) => `- ${item.label} — ${formatDuration(item.minutes)}`)];
}

export function renderText(summary: Summary, subject: string): string {
  const lines = [
    subject,
    '',
    totalLine(summary),
    changeLine(summary),
    ...list(
      'Projects',
      summary.projects.map((p) => ({ label: p.name, minutes: p.minutes })),
    ),
    ...list(
      'Categories',
      summary.categories.map((c) => ({ label: categoryName(c), minutes: c.minutes })),
    ),
    ...list(
      'Tasks',
      summary.tasks.map((t) => ({ label: taskName(t), minutes: t.minutes })),
    ),
  ];
  if (summary.comments.length > 0) {
    lines.push('', 'Comments');
    for (const c of summary.comments) lines.push(`- ${shortDate(c.date)}: ${c.comment.replace(/\r?\n/g, '\n  ')}`);
  }
  return `${lines.join('\n')}\n`;
}
