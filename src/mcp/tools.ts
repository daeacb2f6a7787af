/**
 * The MCP tools of `/mcp` (docs/mcp.md): each wraps one route, takes that route's TypeBox schema
 * as its input schema, needs that route's scope and plan, and calls the same service. An answer
 * is the route's payload (without `success`) as structured content, plus a short text.
 */
import Type, { type TSchema } from 'typebox';
import { formatDuration } from '../services/summaries/durations.ts';
import { ReportBody } from '../schemas/report.ts';
import { SearchBody } from '../schemas/search.ts';
import { MessageBody, type MessageParams } from '../schemas/message.ts';
import { ProjectListQuery } from '../schemas/projects.ts';
import { CreateTaskBody } from '../schemas/tasks.ts';
import { RecordActivitiesBody } from '../schemas/activities.ts';
import type { Scope } from '../services/scopes.ts';
import type { AuthContext } from '../http/auth.ts';
import type { RouteDeps } from '../http/types.ts';
import { buildReport } from '../services/reports/report.ts';
import { EncodedReport } from '../services/reports/activity.ts';
import { parseReportRequest } from '../services/reports/request.ts';
import { searchHistory } from '../services/search/search.ts';
import { readActivities } from '../services/recording/activities.ts';
import { readMessage, readSummary } from '../services/summaries/message.ts';
import { listProjectPage, listProjects, type ProjectContext } from '../services/projects/commands.ts';

/** What a tool answers: the structured content and the sentence an assistant reads first. */
interface ToolAnswer {
  structured: Record<string, unknown>;
  text: string;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  /** The scope of the route the tool wraps (implied scopes grant it too, as on the route). */
  scope: Scope;
  /** `core`: like the route, needs the Core plan or higher. */
  plan?: 'core';
  /** The route's own schema; the arguments are validated with it, worded as the route words a 400. */
  input: TSchema;
  readOnly: boolean;
  run(deps: RouteDeps, auth: AuthContext, input: never): Promise<ToolAnswer>;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

const tool = <T>(
  definition: Omit<Tool, 'run'> & { run(deps: RouteDeps, auth: AuthContext, input: T): Promise<ToolAnswer> },
) => definition as Tool;

/** `/message` without `format`: get_summary answers the data every format renders. */
const SummaryInput = Type.Omit(MessageBody, ['format']);

const projectContext = (deps: RouteDeps, auth: AuthContext): ProjectContext => ({
  db: deps.storage.db,
  user: auth.user,
  viewer: auth.viewer,
  now: deps.now(),
  clock: deps.now,
});

export const TOOLS: Tool[] = [
  tool<ReportBody>({
    name: 'generate_report',
    title: 'Generate a report',
    description:
      'Time tracked in a date range (Unix ms, [from, to)) as rows per activity, day, task or week, like POST /report. ' +
      'No arguments: the last 7 days, one row per day, newest first. Needs scope reports:read and the Core plan.',
    scope: 'reports:read',
    plan: 'core',
    input: ReportBody,
    readOnly: true,
    async run(deps, auth, input) {
      const parsed = parseReportRequest(input, deps.now());
      const report = await buildReport(deps.storage, auth.user, auth.viewer, parsed);
      const payload =
        report instanceof EncodedReport
          ? (JSON.parse(Buffer.concat(report.chunks).toString('utf8')) as Record<string, unknown>)
          : (report as unknown as Record<string, unknown>);
      const { success: _, ...structured } = payload;
      const rows = (structured.rows ?? []) as { duration?: number }[];
      const minutes = rows.reduce((sum, row) => sum + (typeof row.duration === 'number' ? row.duration : 0), 0);
      const from = new Date(parsed.from).toISOString();
      const to = new Date(parsed.to).toISOString();
      return {
        structured,
        text: `${plural(rows.length, `${parsed.level} row`)} from ${from} to ${to}${minutes > 0 ? `, ${formatDuration(minutes)} in all` : ''}.`,
      };
    },
  }),
  tool<SearchBody>({
    name: 'search_content',
    title: 'Search tasks and activities',
    description:
      "Full-text search of the caller's tasks and activities of the last days, best matches first, like POST /search. " +
      'Needs scope search:read.',
    scope: 'search:read',
    input: SearchBody,
    readOnly: true,
    async run(deps, auth, input) {
      const result = await searchHistory(deps.storage, auth.user.id, input, deps.now());
      return { structured: result as unknown as Record<string, unknown>, text: result.message };
    },
  }),
  tool<MessageParams>({
    name: 'get_message',
    title: 'Read a formatted summary',
    description:
      'The stored summary of the day, week, month, quarter or year containing `date` (default yesterday, level day), ' +
      'rendered as text (default here), html, slack or discord, like POST /message. Needs scope summaries:read.',
    scope: 'summaries:read',
    input: MessageBody,
    readOnly: true,
    async run(deps, auth, input) {
      const message = await readMessage(
        deps.storage.db,
        auth.user,
        { ...input, format: input.format ?? 'text' },
        deps.now(),
      );
      const text =
        typeof message.content === 'string' && message.format === 'text'
          ? message.content
          : `${message.metadata.subject} (${message.format}: see the structured content).`;
      return { structured: message as unknown as Record<string, unknown>, text };
    },
  }),
  tool<MessageParams>({
    name: 'get_summary',
    title: 'Read a summary as data',
    description:
      'The stored summary of the day, week, month, quarter or year containing `date` (default yesterday, level day) ' +
      'as data: total minutes, tracked days, time per project, category and task, day comments, the previous period. ' +
      'Needs scope summaries:read.',
    scope: 'summaries:read',
    input: SummaryInput,
    readOnly: true,
    async run(deps, auth, input) {
      const { summary, subject } = await readSummary(deps.storage.db, auth.user, input, deps.now());
      const top = summary.projects[0];
      return {
        structured: { subject, summary },
        text:
          `${subject}: ${formatDuration(summary.totalMinutes)} tracked on ${plural(summary.trackedDays, 'day')}` +
          `${top ? `, most on ${top.name} (${formatDuration(top.minutes)})` : ''}.`,
      };
    },
  }),
  tool<{ sort?: 'createdAt' | 'updatedAt' | 'usedAt'; includeArchived?: boolean; limit?: number; cursor?: string }>({
    name: 'list_projects',
    title: 'List projects',
    description:
      'The projects the caller can see (own personal projects and those of its teams), newest first, like GET /projects. ' +
      'Needs scope projects:read and the Core plan.',
    scope: 'projects:read',
    plan: 'core',
    input: ProjectListQuery,
    readOnly: true,
    async run(deps, auth, input) {
      const { sort = 'createdAt', includeArchived = false, limit, cursor } = input;
      const context = projectContext(deps, auth);
      const structured: Record<string, unknown> =
        limit === undefined && cursor === undefined
          ? { projects: await listProjects(context, { sort, includeArchived }) }
          : { ...(await listProjectPage(context, { sort, includeArchived, limit, cursor })) };
      const projects = structured.projects as { name: string }[];
      const names = projects.slice(0, 20).map((project) => project.name);
      return {
        structured,
        text:
          `${plural(projects.length, 'project')}` +
          (names.length > 0 ? `: ${names.join(', ')}${projects.length > names.length ? ', …' : ''}.` : '.'),
      };
    },
  }),
  tool<CreateTaskBody>({
    name: 'add_manual_task',
    title: 'Add a task',
    description:
      'Create a task on a local date, optionally with the minutes spent on it and its project, like POST /tasks. ' +
      'Needs scope activity:write.',
    scope: 'activity:write',
    input: CreateTaskBody,
    readOnly: false,
    async run(deps, auth, input) {
      const task = await deps.recorder.run('createTask', auth, input);
      return {
        structured: { task },
        text: `Task "${task.title}" created on ${task.date} (id ${task.id})${task.minutes > 0 ? `, ${formatDuration(task.minutes)}` : ''}.`,
      };
    },
  }),
  tool<RecordActivitiesBody>({
    name: 'log_activity',
    title: 'Log activities',
    description:
      'Record or replace 1 to 1,000 activities (all or nothing), like POST /activities. Needs scope activity:write.',
    scope: 'activity:write',
    input: RecordActivitiesBody,
    readOnly: false,
    async run(deps, auth, input) {
      const items = readActivities(input, auth.user.timezone, deps.now());
      const result = await deps.recorder.run('recordActivities', auth, items);
      return {
        structured: result as unknown as Record<string, unknown>,
        text: `${plural(result.created, 'activity', 'activities')} created, ${result.updated} replaced: ${result.ids.join(', ')}.`,
      };
    },
  }),
];
