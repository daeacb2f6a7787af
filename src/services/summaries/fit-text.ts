/**
 * Fitting summary text into a chat platform's limits: long content is cut with a visible
 * "and N more" line, never by breaking a limit (docs/api.md, "GET / POST /message"). Lengths are UTF-16 code
 * units, which never undercounts the characters a platform sees.
 */
import { moreLine } from './summary.ts';

/** `text` shortened to at most `max` characters with `…`, without splitting a character. */
export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  let out = '';
  for (const char of text) {
    if (out.length + char.length > max - 1) break;
    out += char;
  }
  return `${out}…`;
}

/**
 * `lines` joined by newlines, as many as fit in `limit` characters; when some are left out the
 * last line says how many (`more` formats it for the platform).
 */
export function fitLines(lines: string[], limit: number, more: (text: string) => string = (t) => t): string {
  const all = lines.join('\n');
  if (all.length <= limit) return all;
  let kept = 0;
  let length = 0;
  for (const line of lines) {
    const next = length + (kept > 0 ? 1 : 0) + line.length;
    const tail = more(moreLine(lines.length - kept - 1));
    if (next + 1 + tail.length > limit) break;
    length = next;
    kept++;
  }
  const tail = more(moreLine(lines.length - kept));
  return kept > 0 ? `${lines.slice(0, kept).join('\n')}\n${tail}` : tail;
}
