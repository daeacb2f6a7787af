/**
 * Schemas of POST /search. Each field's 400 is worded as docs/api.md states it (`x-error`,
 * src/http/validation.ts); only a query of Unicode white space, which a pattern cannot tell
 * apart portably, is left to the service (services/search/query.ts).
 */
import Type, { type Static } from 'typebox';
import { SEARCH_EXAMPLE } from './examples.ts';
import {
  DEFAULT_DAYS,
  DEFAULT_LIMIT,
  MAX_DAYS,
  MAX_LIMIT,
  MAX_QUERY_LENGTH,
  QUERY_EMPTY,
} from '../services/search/query.ts';

const boundedInteger = (field: string, max: number, fallback: number, description: string) =>
  Type.Union([Type.Integer({ minimum: 1, maximum: max }), Type.Null()], {
    default: fallback,
    description,
    'x-error': `${field} must be an integer between 1 and ${max}`,
  });

export const SearchBody = Type.Object(
  {
    query: Type.String({
      minLength: 1,
      maxLength: MAX_QUERY_LENGTH,
      description:
        'Words to find, each as a word prefix, ignoring case and diacritics; all are required. ' +
        '"Quoted phrases" must occur as consecutive words. Empty, null or whitespace-only: 400 `query must not be empty.`',
      'x-error': { required: QUERY_EMPTY, null: QUERY_EMPTY, minLength: QUERY_EMPTY, type: 'query must be a string' },
    }),
    context: Type.Optional(
      Type.Union([Type.String({ maxLength: MAX_QUERY_LENGTH }), Type.Null()], {
        description: 'Ranking hint: records that already match rank higher when they contain these words.',
        'x-error': { type: 'context must be a string' },
      }),
    ),
    limit: Type.Optional(boundedInteger('limit', MAX_LIMIT, DEFAULT_LIMIT, 'Results returned.')),
    days: Type.Optional(boundedInteger('days', MAX_DAYS, DEFAULT_DAYS, 'Window: the last days × 24 hours up to now.')),
    sources: Type.Optional(
      Type.Union(
        [
          Type.Array(
            Type.Enum(['tasks', 'activity', 'screenshots'], {
              'x-error': 'sources contains an invalid value: {quoted}',
            }),
            {
              minItems: 1,
            },
          ),
          Type.Null(),
        ],
        {
          description: 'Default both. `screenshots` is the legacy name of `activity`.',
          'x-error': 'sources must be a non-empty array of "tasks" and "activity"',
        },
      ),
    ),
  },
  {
    description: 'Unknown fields are ignored; null for an optional field is the same as leaving it out.',
    examples: [SEARCH_EXAMPLE],
    // A JSON null has always been read here as a body without a query.
    'x-error': { type: 'body must be a JSON object', null: QUERY_EMPTY },
  },
);
export type SearchBody = Static<typeof SearchBody>;

const SearchResult = Type.Object({
  source: Type.Enum(['tasks', 'activity']),
  id: Type.String(),
  timestamp: Type.String({ format: 'date-time', description: 'Task createdAt or activity start.' }),
  title: Type.String({ description: 'Task title or activity headline.' }),
  snippet: Type.String({ description: 'At most 200 characters of the best-matching field, `…` where cut.' }),
  matchedFields: Type.Array(Type.String(), { description: '`title`/`headline` and/or `description`.' }),
  metadata: Type.Object(
    {
      minutes: Type.Optional(Type.Number({ description: "Tasks: minutes of all the task's activities." })),
      projectId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      visible: Type.Optional(Type.Boolean()),
      taskId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      categoryName: Type.Optional(Type.Union([Type.String(), Type.Null()])),
      categoryEmoji: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    },
    { description: 'Tasks: minutes, projectId, visible. Activities: taskId, categoryName, categoryEmoji.' },
  ),
});
export type SearchResult = Static<typeof SearchResult>;

export const SearchResponse = Type.Object({
  success: Type.Literal(true),
  query: Type.String(),
  context: Type.Union([Type.String(), Type.Null()]),
  days: Type.Integer(),
  sources: Type.Array(Type.Enum(['tasks', 'activity'])),
  totalMatches: Type.Integer({ description: 'Matches before `limit`.' }),
  results: Type.Array(SearchResult, { description: 'Title/headline matches first, then relevance, then newest.' }),
  message: Type.String({ description: 'e.g. `Found 3 matches for "rate limiter" in the last 7 days.`' }),
});
export type SearchResponse = Static<typeof SearchResponse>;
