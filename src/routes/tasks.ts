import type { RouteModule } from '../http/types.ts';
import { errorResponses } from '../schemas/common.ts';
import {
  CreateTaskBody,
  DayCommentBody,
  DayCommentResponse,
  DeleteTaskResponse,
  TaskParams,
  TaskResponse,
  UpdateTaskBody,
} from '../schemas/tasks.ts';

const taskRoutes: RouteModule = (app, deps) => {
  app.post(
    '/tasks',
    {
      config: { scope: 'activity:write' },
      schema: {
        summary: 'Create a task, optionally with the time spent on it',
        tags: ['recording'],
        body: CreateTaskBody,
        response: { 201: TaskResponse, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const task = await deps.recorder.run('createTask', request.auth, request.body);
      deps.metrics?.recordsWritten('task', 1);
      return reply.code(201).send({ success: true as const, task });
    },
  );

  app.post(
    '/tasks/:id',
    {
      config: { scope: 'activity:write' },
      schema: {
        summary: "Update one of the caller's tasks",
        tags: ['recording'],
        params: TaskParams,
        body: UpdateTaskBody,
        response: { 200: TaskResponse, ...errorResponses(404) },
      },
    },
    async (request) => ({
      success: true as const,
      task: await deps.recorder.run('updateTask', request.auth, request.params.id, request.body),
    }),
  );

  app.delete(
    '/tasks/:id',
    {
      config: { scope: 'activity:write' },
      schema: {
        summary: "Delete one of the caller's tasks with its activities",
        tags: ['recording'],
        params: TaskParams,
        response: { 200: DeleteTaskResponse, ...errorResponses(404) },
      },
    },
    async (request) => {
      await deps.recorder.run('deleteTask', request.auth.user.id, request.params.id);
      return { success: true as const };
    },
  );

  app.post(
    '/day-comments',
    {
      config: { scope: 'activity:write' },
      schema: {
        summary: "Set or remove the caller's comment on a local date",
        tags: ['recording'],
        body: DayCommentBody,
        response: { 200: DayCommentResponse, ...errorResponses() },
      },
    },
    async (request) => {
      const comment = await deps.recorder.run('setDayComment', request.auth.user.id, request.body);
      deps.metrics?.recordsWritten('day_comment', 1);
      return { success: true as const, ...comment };
    },
  );
};

export default taskRoutes;
