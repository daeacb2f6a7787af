/**
 * The POST /search body as one checked request (api.md `/search`, decisions §6.5), and the
 * query text as search terms (decisions §6.2). Every message names the field; the body is
 * checked here rather than by a schema because the contract words these messages exactly.
 */
import { ApiError, shown } from '../../errors.ts';
import { isBlank } from '../../lib/blank.ts';
import { wordsOf } from '../../lib/search-text.ts';
import type { SearchSource } from '../../storage/search.ts';

export const MAX_QUERY_LENGTH = 100;
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 50;
export const DEFAULT_DAYS = 7;
export const MAX_DAYS = 30;

export interface SearchRequest {
  /** As sent; echoed and quoted in the message. */
  query: string;
  context: string | null;
  limit: number;
  days: number;
  sources: SearchSource[];
}

/** `screenshots` is the legacy name of `activity` (public docs of the hosted service). */
const SOURCE_NAMES: Record<string, SearchSource> = { tasks: 'tasks', activity: 'activity', screenshots: 'activity' };

const isAbsent = (value: unknown) => value === undefined || value === null;
const lengthOf = (text: string) => [...text].length;

function boundedInteger(value: unknown, field: string, fallback: number, max: number): number {
  if (isAbsent(value)) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new ApiError(400, `${field} must be an integer between 1 and ${max}`);
  }
  return value;
}

function optionalText(value: unknown, field: string): string | null {
  if (isAbsent(value)) return null;
  if (typeof value !== 'string') throw new ApiError(400, `${field} must be a string`);
  if (lengthOf(value) > MAX_QUERY_LENGTH) {
    throw new ApiError(400, `${field} must be at most ${MAX_QUERY_LENGTH} characters`);
  }
  return value;
}

function parseSources(value: unknown): SearchSource[] {
  if (isAbsent(value)) return ['tasks', 'activity'];
  if (!Array.isArray(value) || value.length === 0) {
    throw new ApiError(400, 'sources must be a non-empty array of "tasks" and "activity"');
  }
  const sources: SearchSource[] = [];
  for (const entry of value) {
    const source = typeof entry === 'string' && Object.hasOwn(SOURCE_NAMES, entry) ? SOURCE_NAMES[entry] : undefined;
    if (!source) throw new ApiError(400, `sources contains an invalid value: ${typeof entry === 'string' ? JSON.stringify(shown(entry)) : shown(entry)}`);
    if (!sources.includes(source)) sources.push(source);
  }
  return sources;
}

/** Checks the body in field order: query, context, limit, days, sources. Unknown fields are ignored. */
export function parseSearchRequest(body: unknown): SearchRequest {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    throw new ApiError(400, 'body must be a JSON object');
  }
  const fields = (body ?? {}) as Record<string, unknown>;
  const query = optionalText(fields.query, 'query');
  if (query === null || isBlank(query)) throw new ApiError(400, 'query must not be empty.');
  return {
    query,
    context: optionalText(fields.context, 'context'),
    limit: boundedInteger(fields.limit, 'limit', DEFAULT_LIMIT, MAX_LIMIT),
    days: boundedInteger(fields.days, 'days', DEFAULT_DAYS, MAX_DAYS),
    sources: parseSources(fields.sources),
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
