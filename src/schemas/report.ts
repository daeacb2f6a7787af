/**
 * Request and response schemas of POST /report. Rows differ by level, so the response is a
 * union of the four row shapes; together they document every field of docs/api.md, "POST /report".
 */
import Type, { type Static } from 'typebox';
import { DOCUMENT_EXAMPLES } from './examples.ts';

/**
 * 9999-12-30T00:00:00Z: up to it, every instant has a local date of four-digit year in every
 * timezone (UTC+14 included) with a day after it, so the days around a range can be named.
 */
const MAX_INSTANT_MS = 253_402_128_000_000;
const Instant = Type.Number({ minimum: 0, maximum: MAX_INSTANT_MS, description: 'Unix milliseconds.' });

export const ReportBody = Type.Object(
  {
    dateRange: Type.Optional(
      Type.Object(
        { from: Instant, to: Instant },
        { description: 'Activities whose start lies in [from, to); `to` must be greater than `from`.' },
      ),
    ),
    aggregationLevel: Type.Optional(
      Type.Enum(['activity', 'day', 'task', 'week', 'minute'], {
        description:
          '`minute` is the legacy name of `activity`. The range may span at most 90 days at activity level, 365 otherwise. ' +
          '`week` rows are the local weeks (by weekStart) all of whose local dates the range touches: the first day on or ' +
          'after the local date of `from`, the last on or before the local date of `to` − 1 ms; each sums its activities ' +
          'inside [from, to). A Monday–Sunday range sent as UTC midnights gives monday-week users that week in every timezone.',
      }),
    ),
    projectIds: Type.Optional(
      Type.Array(Type.String(), {
        description: "Only time of these projects (own project, else the task's); each must be visible to the caller.",
      }),
    ),
    teamIds: Type.Optional(
      Type.Array(Type.String(), {
        description:
          'Report every active member of these teams (the caller must be an active member); not with activity/minute.',
      }),
    ),
    includeCategories: Type.Optional(Type.Boolean({ description: 'Default true; false drops the category fields.' })),
    includeProjects: Type.Optional(Type.Boolean({ description: 'Default true; false drops the project fields.' })),
    sort: Type.Optional(
      Type.Enum(['asc', 'desc'], {
        description: 'By time, ties by id ascending. Omitted: by row id (plain string order).',
      }),
    ),
  },
  {
    description: 'An empty body means the last 7 × 24 hours of day rows, newest first.',
    examples: [DOCUMENT_EXAMPLES.report],
  },
);
export type ReportBody = Static<typeof ReportBody>;

const Nullable = <T extends Type.TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

const NamedMinutes = Type.Object({ name: Type.String(), minutes: Type.Number() });
export type NamedMinutes = Static<typeof NamedMinutes>;
const TaskMinutes = Type.Object({ title: Type.String(), duration: Type.Number() });

const teamFields = {
  user: Type.Optional(Type.String({ description: "Team reports: the member's /user name." })),
  user_email: Type.Optional(Type.String({ description: "Team reports: the member's e-mail." })),
};

const timeLists = {
  projects: Type.Optional(
    Type.Array(NamedMinutes, { description: 'Minutes descending, then name; absent with includeProjects false.' }),
  ),
  categories: Type.Optional(Type.Array(NamedMinutes, { description: 'Absent with includeCategories false.' })),
  tasks: Type.Array(TaskMinutes),
};

const DayRow = Type.Object(
  {
    id: Type.String({ description: '`day:<date>`, in team reports `day:<date>:<userId>`.' }),
    date: Type.String({ description: 'Local date, YYYY-MM-DD.' }),
    ...teamFields,
    duration: Type.Number({ description: 'Minutes tracked.' }),
    duration_relative: Type.Number({ description: '100 × duration ÷ dailyTargetMinutes, one decimal.' }),
    ...timeLists,
    comment: Type.String(),
  },
  { title: 'Day row' },
);
export type DayRow = Static<typeof DayRow>;

const WeekRow = Type.Object(
  {
    id: Type.String({ description: '`week:<first day>`, in team reports `week:<first day>:<userId>`.' }),
    week: Type.String({
      description:
        'First local day of the week; the range touches every date from it to week_end, and the row sums the time inside the range.',
    }),
    week_end: Type.String({ description: 'Last local day of the week.' }),
    ...teamFields,
    duration: Type.Number(),
    duration_relative: Type.Number({ description: '100 × duration ÷ (5 × dailyTargetMinutes), one decimal.' }),
    ...timeLists,
  },
  { title: 'Week row' },
);
export type WeekRow = Static<typeof WeekRow>;

const TaskRow = Type.Object(
  {
    id: Type.String({ description: "`task:<taskId>`; another member's hidden tasks `task:hidden:<date>:<userId>`." }),
    task_id: Nullable(Type.String()),
    task: Type.String({ description: 'Title, or `Hidden task`.' }),
    date: Type.String({ description: "The task's local date." }),
    ...teamFields,
    duration: Type.Number({ description: "The task's minutes in range." }),
    project: Type.Optional(Nullable(Type.String())),
    project_id: Type.Optional(Nullable(Type.String())),
    categories: Type.Optional(Type.Array(NamedMinutes)),
  },
  { title: 'Task row' },
);
export type TaskRow = Static<typeof TaskRow>;

const ActivityRow = Type.Object(
  {
    id: Type.String({ description: '`activity:<activityId>`, or `minute:<activityId>` when asked as `minute`.' }),
    timestamp: Type.Number({ description: 'Start, Unix ms.' }),
    timestampIso: Type.String({ description: 'Start, ISO 8601 UTC.' }),
    time: Type.String({ description: 'Local start time, HH:MM.' }),
    duration: Type.Number(),
    headline: Type.String(),
    description: Nullable(Type.String()),
    task: Nullable(Type.String()),
    task_id: Nullable(Type.String()),
    project: Type.Optional(Nullable(Type.String())),
    project_id: Type.Optional(Nullable(Type.String())),
    category: Type.Optional(Nullable(Type.String())),
    category_emoji: Type.Optional(Nullable(Type.String())),
  },
  { title: 'Activity row' },
);
export type ActivityRow = Static<typeof ActivityRow>;

export const ReportResponse = Type.Object({
  success: Type.Literal(true),
  rowCount: Type.Integer({ description: 'rows.length' }),
  rows: Type.Array(Type.Union([DayRow, WeekRow, TaskRow, ActivityRow])),
});
export type ReportResponse = Static<typeof ReportResponse>;
export type ReportRow = ReportResponse['rows'][number];
