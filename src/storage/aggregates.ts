/**
 * The one aggregation of tracked time shared by reports and summaries: minutes grouped by
 * user, local day, project, category and task, for activities whose start lies in [from, to).
 * Callers shape these groups into day/week/task rows or period summaries.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export interface MinuteGroup {
  userId: string;
  /** The activity's local day in its user's timezone. */
  date: string;
  projectId: string | null;
  categoryId: string | null;
  taskId: string | null;
  minutes: number;
}

export interface AggregateQuery {
  userIds: string[];
  /** Unix ms, inclusive. */
  from: number;
  /** Unix ms, exclusive. */
  to: number;
  /** Only activities of these projects (own project, else the task's). */
  projectIds?: string[];
}

export async function sumMinutes(db: Kysely<Database>, q: AggregateQuery): Promise<MinuteGroup[]> {
  if (q.userIds.length === 0 || (q.projectIds && q.projectIds.length === 0)) return [];
  let query = db
    .selectFrom('activities')
    .select((eb) => [
      'user_id',
      'local_date',
      'effective_project_id',
      'category_id',
      'task_id',
      eb.fn.sum<number>('duration_minutes').as('minutes'),
    ])
    .where('user_id', 'in', q.userIds)
    .where('start', '>=', q.from)
    .where('start', '<', q.to)
    .groupBy(['user_id', 'local_date', 'effective_project_id', 'category_id', 'task_id']);
  if (q.projectIds) query = query.where('effective_project_id', 'in', q.projectIds);
  const rows = await query.execute();
  return rows.map((r) => ({
    userId: r.user_id,
    date: r.local_date,
    projectId: r.effective_project_id,
    categoryId: r.category_id,
    taskId: r.task_id,
    minutes: Number(r.minutes),
  }));
}

export interface NamedProject {
  id: string;
  name: string;
  teamId: string | null;
  createdBy: string;
  private: boolean;
  confidential: boolean;
}

export interface NamedTask {
  id: string;
  userId: string;
  title: string;
  date: string;
  projectId: string | null;
  visible: boolean;
}

export interface NamedCategory {
  id: string;
  name: string;
  emoji: string | null;
}

/** Names and flags of the projects, categories and tasks that groups refer to. */
export async function lookupNames(
  db: Kysely<Database>,
  groups: { projectId: string | null; categoryId: string | null; taskId: string | null }[],
): Promise<{ projects: Map<string, NamedProject>; categories: Map<string, NamedCategory>; tasks: Map<string, NamedTask> }> {
  const projectIds = new Set<string>();
  const categoryIds = new Set<string>();
  const taskIds = new Set<string>();
  for (const g of groups) {
    if (g.projectId) projectIds.add(g.projectId);
    if (g.categoryId) categoryIds.add(g.categoryId);
    if (g.taskId) taskIds.add(g.taskId);
  }
  const projects = new Map<string, NamedProject>();
  const categories = new Map<string, NamedCategory>();
  const tasks = new Map<string, NamedTask>();
  for (const chunk of chunks([...projectIds])) {
    for (const p of await db
      .selectFrom('projects')
      .select(['id', 'name', 'team_id', 'created_by', 'private', 'confidential'])
      .where('id', 'in', chunk)
      .execute()) {
      projects.set(p.id, {
        id: p.id,
        name: p.name,
        teamId: p.team_id,
        createdBy: p.created_by,
        private: Boolean(p.private),
        confidential: Boolean(p.confidential),
      });
    }
  }
  for (const chunk of chunks([...categoryIds])) {
    for (const c of await db.selectFrom('categories').select(['id', 'name', 'emoji']).where('id', 'in', chunk).execute()) {
      categories.set(c.id, c);
    }
  }
  for (const chunk of chunks([...taskIds])) {
    for (const t of await db
      .selectFrom('tasks')
      .select(['id', 'user_id', 'title', 'date', 'project_id', 'visible'])
      .where('id', 'in', chunk)
      .execute()) {
      tasks.set(t.id, {
        id: t.id,
        userId: t.user_id,
        title: t.title,
        date: t.date,
        projectId: t.project_id,
        visible: Boolean(t.visible),
      });
    }
  }
  return { projects, categories, tasks };
}

function* chunks<T>(items: T[], size = 500): Generator<T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
