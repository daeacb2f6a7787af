import type { RouteModule } from '../http/types.ts';
import { errorResponses } from '../schemas/common.ts';
import { UserResponse } from '../schemas/user.ts';
import { displayNameOf } from '../storage/accounts.ts';

const userRoutes: RouteModule = (app) => {
  app.get(
    '/user',
    {
      config: { scope: 'user:read', plan: 'core' },
      schema: {
        summary: "The key owner's profile",
        tags: ['user'],
        response: { 200: UserResponse, ...errorResponses() },
      },
    },
    async (request) => {
      const { user } = request.auth;
      return { success: true as const, name: displayNameOf(user), email: user.email };
    },
  );
};

export default userRoutes;
