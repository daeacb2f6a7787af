/**
 * Schemas of POST /activities and DELETE /activities/:id (docs/api.md, "Recording work"). Each
 * field's 400 names the item and the field (`activities[3].durationMinutes must be …`, the
 * `{field}` of `x-error`, src/http/validation.ts). Left to the service
 * (services/recording/activities.ts): a headline of Unicode white space only, an instant that
 * is not a real date, an end in the future, and the ids and names a caller may refer to.
 */
import Type, { type Static } from 'typebox';
import { DOCUMENT_EXAMPLES, EXAMPLE_ACTIVITY_ID } from './examples.ts';
import { instant, nullableDescription, nullableRecordId, recordId, title } from './record-fields.ts';

const MAX_ACTIVITIES = 1000;
const ACTIVITIES_COUNT = `activities must hold between 1 and ${MAX_ACTIVITIES} items`;

const ActivityItem = Type.Object({
  id: Type.Optional(
    recordId("The activity's id: an id of one of the caller's activities replaces it. Left out: one is made."),
  ),
  start: instant('When the work began: an ISO 8601 instant with an offset or `Z`, or Unix milliseconds.'),
  durationMinutes: Type.Optional(
    Type.Number({
      exclusiveMinimum: 0,
      maximum: 60,
      default: 5,
      description: 'Minutes, more than 0 and at most 60 (default 5, as in the dataset format).',
      'x-error': '{field} must be a number greater than 0 and at most 60',
    }),
  ),
  headline: title('1 to 300 characters, not blank.'),
  description: Type.Optional(nullableDescription()),
  taskId: Type.Optional(nullableRecordId("One of the caller's tasks, or null.")),
  projectId: Type.Optional(
    nullableRecordId("A project the caller may log time to, or null (then the task's project, if any)."),
  ),
  category: Type.Optional(
    Type.Union([Type.String({ minLength: 1, maxLength: 300 }), Type.Null()], {
      description: 'A category id or exact name, or null.',
      'x-error': '{field} must be null or a category id or name',
    }),
  ),
});

export const RecordActivitiesBody = Type.Object(
  {
    activities: Type.Array(ActivityItem, {
      minItems: 1,
      maxItems: MAX_ACTIVITIES,
      'x-error': {
        required: ACTIVITIES_COUNT,
        type: ACTIVITIES_COUNT,
        minItems: ACTIVITIES_COUNT,
        maxItems: ACTIVITIES_COUNT,
      },
    }),
  },
  {
    description: 'Unknown fields are ignored. All or nothing: one invalid item and nothing is stored.',
    examples: [DOCUMENT_EXAMPLES.activities],
    'x-error': { type: 'body must be a JSON object' },
  },
);
export type RecordActivitiesBody = Static<typeof RecordActivitiesBody>;

export const RecordActivitiesResponse = Type.Object({
  success: Type.Literal(true),
  created: Type.Integer({ description: 'Items whose id was new.' }),
  updated: Type.Integer({ description: "Items that replaced one of the caller's activities." }),
  ids: Type.Array(Type.String(), { description: "Each item's id, in request order." }),
});
export type RecordActivitiesResponse = Static<typeof RecordActivitiesResponse>;

export const ActivityParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: "One of the caller's activities.",
    examples: [EXAMPLE_ACTIVITY_ID],
  }),
});

export const DeleteActivityResponse = Type.Object({ success: Type.Literal(true) });
