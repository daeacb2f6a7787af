/**
 * Schemas of POST /tasks, POST /tasks/:id, DELETE /tasks/:id and POST /day-comments (docs/api.md,
 * "Recording work"). Left to the services (services/recording/tasks.ts, day-comments.ts): a
 * title of white space only, the span of `minutes` within the task's day, and the projects a
 * caller may log time to.
 */
import Type, { type Static } from 'typebox';
import { DOCUMENT_EXAMPLES, EXAMPLE_TASK_ID } from './examples.ts';
import { instant, localDate, nullableDescription, recordId, title } from './record-fields.ts';

const project = Type.Optional(
  Type.Union([Type.String({ minLength: 1, maxLength: 300 }), Type.Null()], {
    description:
      'The id or exact name of a project the caller may log time to (visible, not archived, listing the caller among `contributorIds` where it has any), or null for none.',
    'x-error': '{field} must be null or a project id or name',
  }),
);
const visible = Type.Optional(
  Type.Boolean({
    description: 'Whether the task shows in team reports by its title (default true).',
    'x-error': '{field} must be true or false',
  }),
);

export const CreateTaskBody = Type.Object(
  {
    id: Type.Optional(recordId("The new task's id, not used by any task. Left out: one is made.")),
    title: title('1 to 300 characters, not blank.'),
    description: Type.Optional(nullableDescription()),
    date: Type.Optional(
      localDate("The task's local date (the account's timezone). Default: the local date of `start`, else today."),
    ),
    project,
    visible,
    minutes: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1440,
        description:
          "Time spent, recorded as the task's activities of at most 60 minutes each, back to back from `start`.",
        'x-error': '{field} must be an integer from 1 to 1440',
      }),
    ),
    start: Type.Optional(
      instant(
        'When the time of `minutes` began: an ISO 8601 instant with an offset or `Z`, or Unix milliseconds. Default: 09:00 local on `date`.',
      ),
    ),
  },
  {
    description: 'Unknown fields are ignored.',
    examples: [DOCUMENT_EXAMPLES.task],
    'x-error': { type: 'body must be a JSON object' },
  },
);
export type CreateTaskBody = Static<typeof CreateTaskBody>;

export const UpdateTaskBody = Type.Object(
  {
    title: Type.Optional(title('1 to 300 characters, not blank.')),
    description: Type.Optional(nullableDescription()),
    project,
    visible,
  },
  {
    description:
      'Fields left out keep their values. Activities without a project of their own follow the task to its new project.',
    examples: [{ title: 'Reviewed and merged the release notes' }],
    'x-error': { type: 'body must be a JSON object' },
  },
);
export type UpdateTaskBody = Static<typeof UpdateTaskBody>;

const Task = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  date: Type.String({ description: 'Local date, YYYY-MM-DD.' }),
  projectId: Type.Union([Type.String(), Type.Null()]),
  visible: Type.Boolean(),
  minutes: Type.Number({ description: "Minutes of the task's activities." }),
  createdAt: Type.String({
    description:
      'ISO 8601 UTC: the start of its first activity, or noon of its date while it has none (as for an imported task without `createdAt`).',
  }),
});
export type Task = Static<typeof Task>;

export const TaskResponse = Type.Object({ success: Type.Literal(true), task: Task });
export type TaskResponse = Static<typeof TaskResponse>;

export const TaskParams = Type.Object({
  id: Type.String({
    minLength: 1,
    maxLength: 1000,
    description: "One of the caller's tasks.",
    examples: [EXAMPLE_TASK_ID],
  }),
});

export const DeleteTaskResponse = Type.Object({ success: Type.Literal(true) });

const COMMENT_RULE = 'comment must be a string of at most 5000 characters ("" removes the comment)';

export const DayCommentBody = Type.Object(
  {
    date: localDate("A local date in the account's timezone."),
    comment: Type.String({
      maxLength: 5000,
      description: 'At most 5,000 characters; "" removes the comment.',
      'x-error': COMMENT_RULE,
    }),
  },
  {
    examples: [DOCUMENT_EXAMPLES.dayComment],
    'x-error': { type: 'body must be a JSON object' },
  },
);
export type DayCommentBody = Static<typeof DayCommentBody>;

export const DayCommentResponse = Type.Object({
  success: Type.Literal(true),
  date: Type.String(),
  comment: Type.String({ description: 'The comment now set ("" when none).' }),
});
export type DayCommentResponse = Static<typeof DayCommentResponse>;
