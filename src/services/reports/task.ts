/**
 * Task rows (docs/api.md, "POST /report"): one per task with time in range. In a team report another
 * member's hidden tasks become one row per member and task date (`task:hidden:<date>:<userId>`).
 * Time without a task is in no task row.
 */
import type { MinuteGroup } from '../../storage/aggregates.ts';
import { type ReportContext, type TimedRow, ownerFields } from './context.ts';
import type { Label, TaskLabel } from './labels.ts';
import { Tally, cleanMinutes } from './tally.ts';
import type { TaskRow } from '../../schemas/report.ts';

interface TaskEntry {
  id: string;
  userId: string;
  task: TaskLabel;
  /** The project shown: the task's own, or for merged hidden tasks the one they all share. */
  project: Label | null;
  minutes: number;
  categories: Tally;
}

export function buildTaskRows(context: ReportContext, groups: MinuteGroup[]): TimedRow<TaskRow>[] {
  const { request, labels } = context;
  const entries = new Map<string, TaskEntry>();
  for (const group of groups) {
    const task = labels.task(group.userId, group.taskId);
    if (!task) continue;
    const id = task.hidden ? `task:hidden:${task.date}:${group.userId}` : `task:${task.id}`;
    let entry = entries.get(id);
    if (!entry) {
      entry = { id, userId: group.userId, task, project: task.project, minutes: 0, categories: new Tally() };
      entries.set(id, entry);
    } else if (entry.project?.key !== task.project?.key) {
      entry.project = null;
    }
    entry.minutes += group.minutes;
    entry.categories.add(labels.category(group.categoryId), group.minutes);
  }

  const rows: TimedRow<TaskRow>[] = [];
  for (const entry of entries.values()) {
    rows.push({
      time: entry.task.date,
      row: {
        id: entry.id,
        task_id: entry.task.id,
        task: entry.task.name,
        date: entry.task.date,
        ...ownerFields(context, entry.userId),
        duration: cleanMinutes(entry.minutes),
        ...(request.includeProjects
          ? { project: entry.project?.name ?? null, project_id: entry.project?.id ?? null }
          : {}),
        ...(request.includeCategories ? { categories: entry.categories.list() } : {}),
      },
    });
  }
  return rows;
}
