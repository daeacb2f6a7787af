/**
 * Schemas of the WakaTime-compatible routes (decisions §8; docs/api.md, "WakaTime-compatible
 * heartbeats"). A heartbeat is checked on its own by the service (services/heartbeats/record.ts),
 * which answers each in the `responses` list: a bad one must not fail the others, so the
 * request schema only bounds the list.
 */
import Type, { type Static } from 'typebox';
import { DOCUMENT_EXAMPLES } from './examples.ts';

const MAX_HEARTBEATS = 1000;
const COUNT = `heartbeats must be a list of at most ${MAX_HEARTBEATS} heartbeats`;

/**
 * A heartbeat, as wakatime-cli sends it (`time`, `entity`, `type`, `category`, `project`,
 * `branch`, `language`, `is_write`, `lines`, `lineno`, `cursorpos`, `dependencies`,
 * `user_agent`). Any value is taken here and checked by the service, which answers a bad one in
 * its place in `responses` while the others are stored (decisions §8.4).
 */
const HeartbeatIn = Type.Unknown({
  description:
    'A heartbeat: `time` (Unix seconds, fractional allowed; required), `entity` (required), `type` (`file` default, `domain`, `url`, `app`), `category` (default `coding`), `project`, `branch`, `language`, `is_write`, `lines`, `lineno`, `cursorpos`, `dependencies`, `user_agent`; other fields are ignored. Checked one by one: a bad one is answered in its place.',
});

export const HeartbeatsBody = Type.Union(
  [Type.Object({}, { additionalProperties: true }), Type.Array(HeartbeatIn, { maxItems: MAX_HEARTBEATS })],
  {
    description: 'One heartbeat, or a list of at most 1,000.',
    examples: [DOCUMENT_EXAMPLES.heartbeats],
    'x-error': { type: 'body must be a heartbeat object or a list of heartbeats', maxItems: COUNT },
  },
);

export const BulkHeartbeatsBody = Type.Array(HeartbeatIn, {
  maxItems: MAX_HEARTBEATS,
  description: 'A list of at most 1,000 heartbeats.',
  examples: [DOCUMENT_EXAMPLES.heartbeats],
  'x-error': COUNT,
});

const HeartbeatData = Type.Object({
  id: Type.String(),
  user_id: Type.String(),
  time: Type.Number(),
  entity: Type.String(),
  type: Type.String(),
  category: Type.String(),
  project: Type.Union([Type.String(), Type.Null()]),
  branch: Type.Union([Type.String(), Type.Null()]),
  language: Type.Union([Type.String(), Type.Null()]),
  is_write: Type.Union([Type.Boolean(), Type.Null()]),
  lines: Type.Union([Type.Integer(), Type.Null()]),
  lineno: Type.Union([Type.Integer(), Type.Null()]),
  cursorpos: Type.Union([Type.Integer(), Type.Null()]),
  dependencies: Type.Union([Type.Array(Type.String()), Type.Null()]),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  machine_name: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});

export const OneHeartbeatResponse = Type.Object({ data: HeartbeatData });

/** Each heartbeat's answer in order: `[{data}, 201]` or `[{error}, 400]`, as wakatime-cli parses it. */
export const HeartbeatResponses = Type.Object({
  responses: Type.Array(
    // A pair [answer, status]; written as a list of either (fast-json-stringify has no tuples).
    Type.Array(
      Type.Union([Type.Object({ data: HeartbeatData }), Type.Object({ error: Type.String() }), Type.Integer()]),
      {
        minItems: 2,
        maxItems: 2,
        description: '`[{"data": heartbeat}, 201]` or `[{"error": "..."}, 400]`',
      },
    ),
  ),
});

const Total = Type.Object({
  total_seconds: Type.Number(),
  hours: Type.Integer(),
  minutes: Type.Integer(),
  digital: Type.String({ description: 'H:MM' }),
  text: Type.String(),
  decimal: Type.String({ description: 'Hours with two decimals.' }),
});
export type StatusBarTotal = Static<typeof Total>;

const NamedTotal = Type.Intersect([Type.Object({ name: Type.String(), percent: Type.Number() }), Total]);

const StatusBarData = Type.Object({
  grand_total: Total,
  projects: Type.Array(NamedTotal),
  categories: Type.Array(NamedTotal),
  range: Type.Object({
    date: Type.String(),
    start: Type.String(),
    end: Type.String(),
    timezone: Type.String(),
  }),
});
export type StatusBar = Static<typeof StatusBarData>;

export const StatusBarResponse = Type.Object({ data: StatusBarData });
