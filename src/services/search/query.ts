/**
 * The POST /search body as one request with its defaults, and the query text as search terms
 * (docs/api.md `/search`). The route's schema (schemas/search.ts) has checked every field; a
 * query of white space, which it leaves here, is refused with the schema's wording of an empty one.
 */
import { ApiError } from '../../errors.ts';
import { isBlank } from '../../lib/blank.ts';
import { wordsOf } from '../../lib/search-text.ts';
import type { SearchBody } from '../../schemas/search.ts';
import type { SearchSource } from '../../storage/search.ts';

export const MAX_QUERY_LENGTH = 100;
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 50;
export const DEFAULT_DAYS = 7;
export const MAX_DAYS = 30;

export const QUERY_EMPTY = 'query must not be empty.';

export interface SearchRequest {
  /** As sent; echoed and quoted in the message. */
  query: string;
  context: string | null;
  limit: number;
  days: number;
  sources: SearchSource[];
}

/** `screenshots` is the legacy name of `activity` (public docs of the hosted service). */
const SOURCE_NAMES: Record<NonNullable<SearchBody['sources']>[number], SearchSource> = {
  tasks: 'tasks',
  activity: 'activity',
  screenshots: 'activity',
};

/** Null stands for a field left out; sources are named once each, in the order sent. */
export function parseSearchRequest(body: SearchBody): SearchRequest {
  // The schema refuses a missing, null or empty query; one of Unicode White_Space is this rule.
  if (isBlank(body.query)) throw new ApiError(400, QUERY_EMPTY);
  return {
    query: body.query,
    context: body.context ?? null,
    limit: body.limit ?? DEFAULT_LIMIT,
    days: body.days ?? DEFAULT_DAYS,
    sources: body.sources ? [...new Set(body.sources.map((name) => SOURCE_NAMES[name]))] : ['tasks', 'activity'],
  };
}

/** One thing to find: a word, or a quoted phrase of consecutive words. */
export interface SearchTerm {
  /** Folded words, each matched as a word prefix. */
  words: string[];
}

const QUOTE = /["“”„]/;

/**
 * Splits text into terms. Text between a pair of quotes is a phrase; an unpaired quote and every
 * other punctuation or operator character only separates words, so `-`, `*`, `:`, `(` or `NEAR`
 * never act as operators. Repeated terms count once.
 */
export function parseTerms(text: string): SearchTerm[] {
  const parts = text.split(QUOTE);
  const terms = new Map<string, SearchTerm>();
  const add = (term: SearchTerm) => {
    const key = term.words.join(' ');
    if (!terms.has(key)) terms.set(key, term);
  };
  parts.forEach((part, i) => {
    const quoted = i % 2 === 1 && i < parts.length - 1;
    const words = wordsOf(part).map((w) => w.folded);
    if (quoted && words.length > 1) add({ words });
    else for (const word of words) add({ words: [word] });
  });
  return [...terms.values()];
}

/** Every distinct word of the terms. */
export function wordsOfTerms(terms: SearchTerm[]): string[] {
  return [...new Set(terms.flatMap((term) => term.words))];
}
