/**
 * Schemas of `/destinations` (docs/api.md, "Delivering summaries"; docs/delivery.md). Left to
 * the service (services/delivery/destinations.ts): the URL's scheme, credentials and address,
 * a blank name, and the number of destinations per user.
 */
import Type, { type Static } from 'typebox';
import { recordId } from './record-fields.ts';

/** The id of the example destination: created by POST /destinations's example, used by the others'. */
const EXAMPLE_DESTINATION_ID = 'dst_example_slack';

const DESTINATION_KINDS = ['slack', 'discord', 'webhook'] as const;
export const DELIVERY_LEVELS = ['day', 'week', 'month', 'quarter', 'year'] as const;

const Instant = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

const kind = Type.Union([Type.Literal('slack'), Type.Literal('discord'), Type.Literal('webhook')], {
  description:
    '`slack`: a Slack incoming-webhook URL (Block Kit). `discord`: a Discord webhook URL (one embed). `webhook`: any HTTPS endpoint, sent every format and signed per the Standard Webhooks specification.',
  'x-error': `{field} must be one of: ${DESTINATION_KINDS.join(', ')}`,
});

const url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'An https URL on a public address (private, loopback and link-local ones are refused unless the server allows them). Secret for Slack and Discord: answers show it masked.',
  'x-error': '{field} must be a URL of at most 2048 characters',
});

const name = Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()], {
  description: 'A label of your own, 1 to 100 characters, or null.',
  'x-error': '{field} must be null or 1 to 100 characters',
});

const levels = Type.Array(
  Type.Union(
    [Type.Literal('day'), Type.Literal('week'), Type.Literal('month'), Type.Literal('quarter'), Type.Literal('year')],
    { 'x-error': `{field} must be one of: ${DELIVERY_LEVELS.join(', ')}` },
  ),
  {
    minItems: 1,
    maxItems: DELIVERY_LEVELS.length,
    uniqueItems: true,
    description: 'The summary levels delivered. Default `["day"]`.',
    'x-error': `{field} must be a non-empty list of distinct levels out of ${DELIVERY_LEVELS.join(', ')}`,
  },
);

const updates = Type.Boolean({
  description:
    'Whether a summary rebuilt after late data is delivered again (event `summary.updated`). Default false: each summary is delivered once, when first built.',
  'x-error': '{field} must be true or false',
});

export const CreateDestinationBody = Type.Object(
  {
    id: Type.Optional(
      recordId("The new destination's id, not used by any destination. Left out: one is made (`dst_…`)."),
    ),
    kind,
    url,
    name: Type.Optional(name),
    levels: Type.Optional(levels),
    updates: Type.Optional(updates),
  },
  {
    description: 'Unknown fields are ignored.',
    examples: [
      {
        id: EXAMPLE_DESTINATION_ID,
        kind: 'slack',
        url: 'https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX',
        levels: ['day', 'week'],
      },
    ],
    'x-error': { type: 'body must be a JSON object' },
  },
);
export type CreateDestinationBody = Static<typeof CreateDestinationBody>;

export const UpdateDestinationBody = Type.Object(
  {
    url: Type.Optional(url),
    name: Type.Optional(name),
    levels: Type.Optional(levels),
    updates: Type.Optional(updates),
    enabled: Type.Optional(
      Type.Boolean({
        description:
          'false pauses deliveries (they wait); true enables a destination again, also one the server disabled, and clears why.',
        'x-error': '{field} must be true or false',
      }),
    ),
  },
  {
    description: 'Fields left out keep their values. The kind cannot change: create another destination.',
    examples: [{ levels: ['day', 'week', 'month'], updates: true }],
    'x-error': { type: 'body must be a JSON object' },
  },
);
export type UpdateDestinationBody = Static<typeof UpdateDestinationBody>;

export const DestinationParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: 'One of the caller’s destinations (`dst_…`, from POST /destinations or GET /destinations).',
    examples: [EXAMPLE_DESTINATION_ID],
  }),
});

export const Destination = Type.Object({
  id: Type.String(),
  kind,
  name: Type.Union([Type.String(), Type.Null()]),
  url: Type.String({ description: 'The scheme, host and the last 4 characters; the rest is masked.' }),
  levels: Type.Array(Type.String()),
  updates: Type.Boolean(),
  enabled: Type.Boolean(),
  disabledReason: Type.Union([Type.String(), Type.Null()], {
    description: 'Why the server disabled it (410 Gone, or failing for 3 days), or null.',
  }),
  disabledAt: Instant,
  failingSince: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'The first failed attempt since the last delivery, or null.',
  }),
  lastDeliveredAt: Instant,
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type Destination = Static<typeof Destination>;

export const DestinationResponse = Type.Object({ success: Type.Literal(true), destination: Destination });

export const CreatedDestinationResponse = Type.Object({
  success: Type.Literal(true),
  destination: Destination,
  secret: Type.Optional(
    Type.String({
      description:
        'Webhooks only: the `whsec_…` signing secret, shown this once. Receivers verify `webhook-signature` with it.',
    }),
  ),
});

export const DestinationListResponse = Type.Object({
  success: Type.Literal(true),
  destinations: Type.Array(Destination),
});

export const DeleteDestinationResponse = Type.Object({ success: Type.Literal(true) });

const Attempt = Type.Object({
  deliveryId: Type.String({ description: 'The delivery, sent as `webhook-id` on every attempt.' }),
  attempt: Type.Integer({ description: '1 for the first attempt of the delivery.' }),
  event: Type.String(),
  level: Type.Union([Type.String(), Type.Null()]),
  periodStart: Type.Union([Type.String(), Type.Null()]),
  attemptedAt: Type.String({ format: 'date-time' }),
  durationMs: Type.Integer(),
  outcome: Type.String({
    description:
      '`delivered`, `failed` (an answer other than 2xx), `rate-limited` (429), `gone` (410), `timeout`, `network` or `refused` (address not allowed).',
  }),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  responseExcerpt: Type.Union([Type.String(), Type.Null()], {
    description: 'The first 200 characters of the answer body, or null.',
  }),
  deliveryStatus: Type.String({ description: '`pending`, `delivered`, `failed` or `superseded`.' }),
  nextAttemptAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When a pending delivery is tried again, or null.',
  }),
});
export type Attempt = Static<typeof Attempt>;

export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 200,
      default: 50,
      description: 'Attempts to show, newest first (1 to 200, default 50).',
      'x-error': '{field} must be an integer between 1 and 200',
    }),
  ),
});

export const DeliveriesResponse = Type.Object({
  success: Type.Literal(true),
  attempts: Type.Array(Attempt),
});

export const TestDeliveryResponse = Type.Object({
  success: Type.Literal(true),
  delivered: Type.Boolean({ description: 'Whether the destination answered 2xx.' }),
  attempt: Attempt,
});
