/**
 * The snippet of a search result (decisions §6.4): at most 200 characters of the best-matching
 * field, cut at word boundaries around the first match, with `…` where text was left out.
 */
import type { FieldMatch } from './search-ranking.ts';

export const SNIPPET_LENGTH = 200;
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

/** Moves `index` off the middle of a surrogate pair. */
function safeCut(text: string, index: number): number {
  const code = text.charCodeAt(index - 1);
  return code >= 0xd800 && code <= 0xdbff ? index - 1 : index;
}

/** The first word boundary (start of text or after a space) at or after `from`, if before `limit`. */
function wordStartFrom(text: string, from: number, limit: number): number {
  if (from <= 0) return 0;
  const space = text.indexOf(' ', from - 1);
  return space !== -1 && space + 1 <= limit ? space + 1 : limit;
}

export function buildSnippet(field: FieldMatch): string {
  const { text, words, occurrences } = field;
  if (text.length <= SNIPPET_LENGTH) return text;

  const first = occurrences.flat().sort((a, b) => a[0] - b[0])[0];
  const matchStart = first ? words[first[0]]!.start : 0;
  const matchEnd = first ? words[first[1]]!.end : 0;

  let start = wordStartFrom(text, matchStart - LEAD, matchStart);
  // When the rest of the text fits, show more of what precedes the match instead.
  if (text.length - start <= SNIPPET_LENGTH - 1) {
    start = wordStartFrom(text, text.length - (SNIPPET_LENGTH - 1), start);
  }
  const lead = start > 0 ? ELLIPSIS : '';
  const room = SNIPPET_LENGTH - lead.length;
  if (text.length - start <= room) return lead + text.slice(start).trimStart();

  const limit = start + room - ELLIPSIS.length;
  const space = text.lastIndexOf(' ', limit);
  const end = space > start && space >= matchEnd ? space : safeCut(text, limit);
  return lead + text.slice(start, end).trim() + ELLIPSIS;
}
