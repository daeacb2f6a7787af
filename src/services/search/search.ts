/**
 * POST /search: the caller's own tasks and activities of the last `days` × 24 hours that match
 * the query, ranked, with snippets and the summary sentence (docs/api.md, "POST /search").
 */
import type { Payload } from '../../schemas/common.ts';
import type { SearchBody, SearchResponse, SearchResult } from '../../schemas/search.ts';
import type { Storage } from '../../storage/database.ts';
import { findSearchCandidates } from '../../storage/search.ts';
import { parseSearchRequest, parseTerms, wordsOfTerms } from './query.ts';
import { type RankedDocument, rankDocuments } from './ranking.ts';
import { bestField, buildSnippet } from './snippet.ts';
import { DAY_MS } from '../../lib/time.ts';
import { cleanMinutes } from '../reports/tally.ts';

/** `Found 3 matches for "x" in the last 7 days.` / `No matches for "x" in the last 1 day.` */
function describeMatches(total: number, query: string, days: number): string {
  const window = `in the last ${days} ${days === 1 ? 'day' : 'days'}.`;
  if (total === 0) return `No matches for "${query}" ${window}`;
  return `Found ${total} ${total === 1 ? 'match' : 'matches'} for "${query}" ${window}`;
}

function presentResults(page: RankedDocument[]): SearchResult[] {
  return page.map(({ document: d, fields, matchedFields }) => ({
    source: d.source,
    id: d.id,
    timestamp: new Date(d.at).toISOString(),
    title: d.title,
    snippet: buildSnippet(bestField(fields)),
    matchedFields,
    metadata:
      d.source === 'tasks'
        ? // A sum of fractional minutes, in the database's order: without its binary noise.
          { minutes: cleanMinutes(d.minutes ?? 0), projectId: d.projectId ?? null, visible: d.visible ?? true }
        : { taskId: d.taskId ?? null, categoryName: d.categoryName ?? null, categoryEmoji: d.categoryEmoji ?? null },
  }));
}

export async function searchHistory(
  storage: Storage,
  userId: string,
  body: SearchBody,
  now: number,
): Promise<Payload<SearchResponse>> {
  const request = parseSearchRequest(body);
  const terms = parseTerms(request.query);
  const context = request.context === null ? [] : parseTerms(request.context);
  const candidates = await findSearchCandidates(storage, {
    userId,
    from: now - request.days * DAY_MS,
    to: now,
    sources: request.sources,
    words: wordsOfTerms(terms),
  });
  const ranked = rankDocuments(candidates, terms, context);
  return {
    query: request.query,
    context: request.context,
    days: request.days,
    sources: request.sources,
    totalMatches: ranked.length,
    results: presentResults(ranked.slice(0, request.limit)),
    message: describeMatches(ranked.length, request.query, request.days),
  };
}
