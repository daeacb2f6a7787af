/**
 * The snippet of a search result (docs/api.md, "POST /search"): at most 200 characters of the best-matching
 * field, cut at word boundaries around the first match, with `…` where text was left out.
 */
import type { FieldMatch } from './ranking.ts';

const SNIPPET_LENGTH = 200;
/** How much text before the match stays in view. */
const LEAD = 60;
const ELLIPSIS = '…';

/** The field matching the most distinct query terms, then the most often; the title on ties. */
export function bestField(fields: FieldMatch[]): FieldMatch {
  const rank = (field: FieldMatch) => {
    const hits = field.occurrences.filter((o) => o.length > 0);
    return [hits.length, hits.reduce((sum, o) => sum + o.length, 0)] as const;
  };
  let best = fields[0]!;
  for (const field of fields.slice(1)) {
    const [terms, count] = rank(field);
    const [bestTerms, bestCount] = rank(best);
    if (terms > bestTerms || (terms === bestTerms && count > bestCount)) best = field;
  }
  return best;
}

/**
 * Lengths count characters (code points), as every other limit of the API does: an emoji is one
 * character, though it takes two UTF-16 units. These move over the text by characters.
 */
function charsBetween(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if (code < 0xdc00 || code > 0xdfff || i === from || !isHighSurrogate(text.charCodeAt(i - 1))) n++;
  }
  return n;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The index `count` characters after `index` (at most the text's end). */
function forward(text: string, index: number, count: number): number {
  let i = index;
  for (let n = 0; n < count && i < text.length; n++) {
    i += isHighSurrogate(text.charCodeAt(i)) && i + 1 < text.length ? 2 : 1;
  }
  return i;
}

/** The index `count` characters before `index` (at least 0). */
function back(text: string, index: number, count: number): number {
  let i = index;
  for (let n = 0; n < count && i > 0; n++) {
    const low = text.charCodeAt(i - 1);
    i -= low >= 0xdc00 && low <= 0xdfff && i >= 2 && isHighSurrogate(text.charCodeAt(i - 2)) ? 2 : 1;
  }
  return i;
}

/** The first word boundary (start of text or after a space) at or after `from`, if before `limit`. */
function wordStartFrom(text: string, from: number, limit: number): number {
  if (from <= 0) return 0;
  const space = text.indexOf(' ', from - 1);
  return space !== -1 && space + 1 <= limit ? space + 1 : limit;
}

export function buildSnippet(field: FieldMatch): string {
  const { text, words, occurrences } = field;
  if (text.length <= SNIPPET_LENGTH || charsBetween(text, 0, text.length) <= SNIPPET_LENGTH) return text;

  const first = occurrences.flat().sort((a, b) => a[0] - b[0])[0];
  const matchStart = first ? words[first[0]]!.start : 0;
  const matchEnd = first ? words[first[1]]!.end : 0;

  let start = wordStartFrom(text, back(text, matchStart, LEAD), matchStart);
  // When the rest of the text fits, show more of what precedes the match instead.
  if (charsBetween(text, start, text.length) <= SNIPPET_LENGTH - 1) {
    start = wordStartFrom(text, back(text, text.length, SNIPPET_LENGTH - 1), start);
  }
  const lead = start > 0 ? ELLIPSIS : '';
  const room = SNIPPET_LENGTH - lead.length;
  if (charsBetween(text, start, text.length) <= room) return lead + text.slice(start).trimStart();

  const limit = forward(text, start, room - ELLIPSIS.length);
  const space = text.lastIndexOf(' ', limit);
  const end = space > start && space >= matchEnd ? space : limit;
  return lead + text.slice(start, end).trim() + ELLIPSIS;
}
