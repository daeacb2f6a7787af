/**
 * WakaTime-compatible routes (decisions §8), under `/api/v1` (the `api_url` an editor plugin is
 * given) and `/api/compat/wakatime/v1`. The key may come as wakatime-cli sends it, in
 * `Authorization: Basic base64(key)`, or as `Bearer`, or in `x-api-key`.
 */
import { ApiError } from '../errors.ts';
import type { RouteModule } from '../http/types.ts';
import { errorResponses } from '../schemas/common.ts';
import {
  BulkHeartbeatsBody,
  HeartbeatResponses,
  HeartbeatsBody,
  OneHeartbeatResponse,
  StatusBarResponse,
} from '../schemas/heartbeats.ts';
import { statusBarToday } from '../services/heartbeats/statusbar.ts';

const PREFIXES = ['/api/v1', '/api/compat/wakatime/v1'];

const heartbeatRoutes: RouteModule = (app, deps) => {
  // What the request tells of where its heartbeats come from (the recorder adds the clock).
  const contextOf = (headers: Record<string, string | string[] | undefined>) => {
    const header = (name: string) => {
      const value = headers[name];
      return (Array.isArray(value) ? value[0] : value) ?? null;
    };
    return {
      machine: header('x-machine-name'),
      userAgent: header('user-agent'),
      timeoutMinutes: deps.config.heartbeatTimeoutMinutes,
    };
  };
  const config = { scope: 'activity:write', authorizationHeader: true } as const;

  for (const prefix of PREFIXES) {
    app.post(
      `${prefix}/users/current/heartbeats`,
      {
        config,
        schema: {
          summary: 'Record one heartbeat or a list (WakaTime-compatible)',
          tags: ['heartbeats'],
          body: HeartbeatsBody,
          response: { 201: { anyOf: [OneHeartbeatResponse, HeartbeatResponses] }, ...errorResponses() },
        },
      },
      async (request, reply) => {
        const body = request.body;
        const list = Array.isArray(body);
        const results = await deps.recorder.run(
          'recordHeartbeats',
          request.auth,
          list ? body : [body],
          contextOf(request.headers),
        );
        deps.metrics?.recordsWritten('heartbeat', results.filter((r) => r.status === 201).length);
        if (list) return reply.code(201).send({ responses: results.map(({ status, ...entry }) => [entry, status]) });
        const [result] = results;
        if (!result || 'error' in result) throw new ApiError(400, result?.error ?? 'heartbeat must be a JSON object');
        return reply.code(201).send({ data: result.data });
      },
    );

    app.post(
      `${prefix}/users/current/heartbeats.bulk`,
      {
        config,
        schema: {
          summary: 'Record a list of at most 1,000 heartbeats (WakaTime-compatible)',
          tags: ['heartbeats'],
          body: BulkHeartbeatsBody,
          response: { 201: HeartbeatResponses, ...errorResponses() },
        },
      },
      async (request, reply) => {
        const results = await deps.recorder.run(
          'recordHeartbeats',
          request.auth,
          request.body,
          contextOf(request.headers),
        );
        deps.metrics?.recordsWritten('heartbeat', results.filter((r) => r.status === 201).length);
        return reply.code(201).send({ responses: results.map(({ status, ...entry }) => [entry, status]) });
      },
    );

    app.get(
      `${prefix}/users/current/statusbar/today`,
      {
        config: { ...config, orScope: 'reports:read' },
        schema: {
          summary: "The caller's time today, as WakaTime's status bar reads it",
          tags: ['heartbeats'],
          response: { 200: StatusBarResponse, ...errorResponses() },
        },
      },
      async (request) => ({ data: await statusBarToday(deps.storage, request.auth.user, deps.now()) }),
    );
  }
};

export default heartbeatRoutes;
