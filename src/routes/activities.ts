import type { RouteModule } from '../http/types.ts';
import { readActivities } from '../services/recording/activities.ts';
import {
  ActivityParams,
  DeleteActivityResponse,
  RecordActivitiesBody,
  RecordActivitiesResponse,
} from '../schemas/activities.ts';
import { errorResponses } from '../schemas/common.ts';

const activityRoutes: RouteModule = (app, deps) => {
  app.post(
    '/activities',
    {
      config: { scope: 'activity:write' },
      schema: {
        summary: "Record or replace the caller's activities (1 to 1,000, all or nothing)",
        tags: ['recording'],
        body: RecordActivitiesBody,
        response: { 200: RecordActivitiesResponse, ...errorResponses(409) },
      },
    },
    async (request) => {
      // Checked here, before the write is queued (readActivities).
      const items = readActivities(request.body, request.auth.user.timezone, deps.now());
      const recorded = await deps.recorder.run('recordActivities', request.auth, items);
      deps.metrics?.recordsWritten('activity', recorded.ids.length);
      return { success: true as const, ...recorded };
    },
  );

  app.delete(
    '/activities/:id',
    {
      config: { scope: 'activity:write' },
      schema: {
        summary: "Delete one of the caller's activities",
        tags: ['recording'],
        params: ActivityParams,
        response: { 200: DeleteActivityResponse, ...errorResponses(404) },
      },
    },
    async (request) => {
      await deps.recorder.run('deleteActivity', request.auth.user.id, request.params.id);
      return { success: true as const };
    },
  );
};

export default activityRoutes;
