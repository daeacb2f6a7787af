import Type from 'typebox';
import type { RouteModule } from '../http/types.ts';
import { SEARCH_EXAMPLE } from '../schemas/examples.ts';
import { errorResponses } from '../schemas/common.ts';
import { searchHistory } from '../services/search/search.ts';

const SearchBody = Type.Object(
  {
    query: Type.String({
      maxLength: 100,
      description:
        'Words to find, each as a word prefix, ignoring case and diacritics; all are required. ' +
        '"Quoted phrases" must occur as consecutive words. Empty or whitespace-only: 400 `query must not be empty.`',
    }),
    context: Type.Optional(
      Type.String({ maxLength: 100, description: 'Ranking hint: records that already match rank higher when they contain these words.' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20, description: 'Results returned.' })),
    days: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 30, default: 7, description: 'Window: the last days × 24 hours up to now.' }),
    ),
    sources: Type.Optional(
      Type.Array(Type.Enum(['tasks', 'activity', 'screenshots']), {
        description: 'Default both. `screenshots` is the legacy name of `activity`.',
      }),
    ),
  },
  { description: 'Unknown fields are ignored.', examples: [SEARCH_EXAMPLE] },
);

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

const SearchResponse = Type.Object({
  success: Type.Literal(true),
  query: Type.String(),
  context: Type.Union([Type.String(), Type.Null()]),
  days: Type.Integer(),
  sources: Type.Array(Type.Enum(['tasks', 'activity'])),
  totalMatches: Type.Integer({ description: 'Matches before `limit`.' }),
  results: Type.Array(SearchResult, { description: 'Title/headline matches first, then relevance, then newest.' }),
  message: Type.String({ description: 'e.g. `Found 3 matches for "rate limiter" in the last 7 days.`' }),
});

const searchRoutes: RouteModule = (app, deps) => {
  app.post(
    '/search',
    {
      config: { scope: 'search:read' },
      schema: {
        summary: "Search the caller's tasks and activity",
        tags: ['search'],
        body: SearchBody,
        response: { 200: SearchResponse, ...errorResponses() },
      },
      // The body schema documents the request; the service checks it, because the contract
      // words each 400 exactly (`query must not be empty.`, `limit must be an integer between 1 and 50`).
      validatorCompiler: () => () => true,
    },
    async (request) => searchHistory(deps.storage, request.auth.user.id, request.body, deps.now()),
  );
};

export default searchRoutes;
