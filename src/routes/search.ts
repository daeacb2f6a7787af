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
    async (request) => {
      const job = { userId: request.auth.user.id, body: request.body, now: deps.now() };
      // On a read worker when one has room (services/read-workers.ts), else here.
      const found = deps.readers?.search(job) ?? searchHistory(deps.storage, job.userId, job.body, job.now);
      return { success: true as const, ...(await found) };
    },
  );
};

export default searchRoutes;
