import type { RouteModule } from '../http/types.ts';
import { errorResponses } from '../schemas/common.ts';
import {
  CreateDestinationBody,
  CreatedDestinationResponse,
  DeleteDestinationResponse,
  DeliveriesQuery,
  DeliveriesResponse,
  DestinationListResponse,
  DestinationParams,
  DestinationResponse,
  TestDeliveryResponse,
  UpdateDestinationBody,
} from '../schemas/destinations.ts';
import {
  changeDestination,
  createDestination,
  deliveriesOf,
  getDestination,
  listDestinationsOf,
  removeDestination,
  testDestination,
} from '../services/delivery/destinations.ts';
import type { DeliverySettings } from '../services/delivery/worker.ts';

const tags = ['delivery'];
const config = { scope: 'destinations:write' } as const;

const destinationRoutes: RouteModule = (app, deps) => {
  const settings: DeliverySettings = {
    timeoutMs: deps.config.deliveryTimeoutMs,
    allowPrivate: deps.config.deliveryAllowPrivate,
  };

  app.get(
    '/destinations',
    {
      config,
      schema: {
        summary: "The caller's summary destinations",
        tags,
        response: { 200: DestinationListResponse, ...errorResponses() },
      },
    },
    async (request) => ({
      success: true as const,
      destinations: await listDestinationsOf(deps.storage, request.auth.user.id),
    }),
  );

  app.post(
    '/destinations',
    {
      config,
      schema: {
        summary: 'Deliver summaries to Slack, Discord or a signed webhook',
        description:
          'Each summary of the chosen levels is delivered once, when it is first built (and again when rebuilt, with `updates`). A `webhook` answer carries its signing `secret` this once.',
        tags,
        body: CreateDestinationBody,
        response: { 201: CreatedDestinationResponse, ...errorResponses(409) },
      },
    },
    async (request, reply) => {
      const created = await createDestination(deps.storage, request.auth.user.id, request.body, settings, deps.now());
      return reply.code(201).send({ success: true as const, ...created });
    },
  );

  // Before /destinations/:id, so that /docs lists them before its DELETE (its examples run in that order).
  app.post(
    '/destinations/:id/test',
    {
      config,
      schema: {
        summary: 'Send a sample summary to the destination now',
        description:
          'One attempt, answered with how it went (`delivered`, the status and error). Listed with the deliveries; not retried.',
        tags,
        params: DestinationParams,
        response: { 200: TestDeliveryResponse, ...errorResponses(404) },
      },
    },
    async (request) => ({
      success: true as const,
      ...(await testDestination(
        deps.storage,
        request.auth.user,
        request.params.id,
        settings,
        deps.now(),
        deps.metrics,
      )),
    }),
  );

  app.get(
    '/destinations/:id/deliveries',
    {
      config,
      schema: {
        summary: 'Recent delivery attempts to the destination, newest first',
        tags,
        params: DestinationParams,
        querystring: DeliveriesQuery,
        response: { 200: DeliveriesResponse, ...errorResponses(404) },
      },
    },
    async (request) => ({
      success: true as const,
      attempts: await deliveriesOf(deps.storage, request.auth.user.id, request.params.id, request.query.limit ?? 50),
    }),
  );

  app.get(
    '/destinations/:id',
    {
      config,
      schema: {
        summary: 'One of the caller’s destinations, with why it is disabled if it is',
        tags,
        params: DestinationParams,
        response: { 200: DestinationResponse, ...errorResponses(404) },
      },
    },
    async (request) => ({
      success: true as const,
      destination: await getDestination(deps.storage, request.auth.user.id, request.params.id),
    }),
  );

  for (const method of ['POST', 'PATCH'] as const) {
    app.route({
      method,
      url: '/destinations/:id',
      config,
      schema: {
        summary: 'Change a destination, pause it, or enable it again',
        tags,
        params: DestinationParams,
        body: UpdateDestinationBody,
        response: { 200: DestinationResponse, ...errorResponses(404) },
      },
      handler: async (request) => ({
        success: true as const,
        destination: await changeDestination(
          deps.storage,
          request.auth.user.id,
          request.params.id,
          request.body,
          settings,
          deps.now(),
        ),
      }),
    });
  }

  app.delete(
    '/destinations/:id',
    {
      config,
      schema: {
        summary: 'Delete a destination with its deliveries',
        tags,
        params: DestinationParams,
        response: { 200: DeleteDestinationResponse, ...errorResponses(404) },
      },
    },
    async (request) => {
      await removeDestination(deps.storage, request.auth.user.id, request.params.id);
      return { success: true as const };
    },
  );
};

export default destinationRoutes;
