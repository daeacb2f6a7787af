import type { RouteModule } from '../http/types.ts';
import { errorResponses } from '../schemas/common.ts';
import { SearchBody, SearchResponse } from '../schemas/search.ts';
import { searchHistory } from '../services/search/search.ts';

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
    },
    async (request) => ({
      success: true as const,
      ...(await searchHistory(deps.storage, request.auth.user.id, request.body, deps.now())),
    }),
  );
};

export default searchRoutes;
