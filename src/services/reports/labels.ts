/**
 * What a report shows for a project, category or task, including the team privacy rules of
 * docs/api.md, "POST /report": in another member's rows, projects the caller cannot see and private projects
 * read `Other`, tasks that are not visible or belong to a confidential project read
 * `Hidden task`, and the ids of masked things are null. The caller's own rows are never masked.
 */
import type { NamedCategory, NamedProject, NamedTask } from '../../storage/aggregates.ts';
import { type Viewer, canSeeProject } from '../projects/access.ts';

export const MASKED_PROJECT = 'Other';
export const HIDDEN_TASK = 'Hidden task';

export interface Label {
  /** Entries with the same key are one entry in a list: the id, or the masked name. */
  key: string;
  name: string;
  id: string | null;
}

export interface TaskLabel extends Label {
  hidden: boolean;
  /** The task's own local date. */
  date: string;
  /** The task's own project, as the caller may see it. */
  project: Label | null;
}

export interface CategoryLabel extends Label {
  emoji: string | null;
}

export interface NameLookup {
  projects: Map<string, NamedProject>;
  categories: Map<string, NamedCategory>;
  tasks: Map<string, NamedTask>;
}

const maskedProject: Label = { key: `masked:${MASKED_PROJECT}`, name: MASKED_PROJECT, id: null };

export class ReportLabels {
  private readonly caller: Viewer;
  private readonly names: NameLookup;
  // A label depends only on the thing and on whether its owner is the caller; reports ask for
  // the same few labels for thousands of groups, so each is built once per side.
  private readonly ownProjects = new Map<string, Label | null>();
  private readonly othersProjects = new Map<string, Label | null>();
  private readonly categories = new Map<string, CategoryLabel | null>();
  private readonly ownTasks = new Map<string, TaskLabel | null>();
  private readonly othersTasks = new Map<string, TaskLabel | null>();

  constructor(caller: Viewer, names: NameLookup) {
    this.caller = caller;
    this.names = names;
  }

  /** Rows of the caller itself are never masked. */
  private masks(ownerId: string): boolean {
    return ownerId !== this.caller.userId;
  }

  project(ownerId: string, projectId: string | null): Label | null {
    if (projectId === null) return null;
    const known = this.masks(ownerId) ? this.othersProjects : this.ownProjects;
    let label = known.get(projectId);
    if (label === undefined) {
      label = this.buildProject(ownerId, projectId);
      known.set(projectId, label);
    }
    return label;
  }

  private buildProject(ownerId: string, projectId: string): Label | null {
    const project = this.names.projects.get(projectId);
    if (this.masks(ownerId) && (!project || project.private || !canSeeProject(project, this.caller)))
      return maskedProject;
    if (!project) return null;
    return { key: `id:${project.id}`, name: project.name, id: project.id };
  }

  category(categoryId: string | null): CategoryLabel | null {
    if (categoryId === null) return null;
    let label = this.categories.get(categoryId);
    if (label === undefined) {
      label = this.buildCategory(categoryId);
      this.categories.set(categoryId, label);
    }
    return label;
  }

  private buildCategory(categoryId: string): CategoryLabel | null {
    const category = this.names.categories.get(categoryId);
    if (!category) return null;
    return { key: `id:${category.id}`, name: category.name, id: category.id, emoji: category.emoji };
  }

  task(ownerId: string, taskId: string | null): TaskLabel | null {
    if (taskId === null) return null;
    const known = this.masks(ownerId) ? this.othersTasks : this.ownTasks;
    let label = known.get(taskId);
    if (label === undefined) {
      label = this.buildTask(ownerId, taskId);
      known.set(taskId, label);
    }
    return label;
  }

  private buildTask(ownerId: string, taskId: string): TaskLabel | null {
    const task = this.names.tasks.get(taskId);
    if (!task) return null;
    const project = this.project(ownerId, task.projectId);
    const confidential = task.projectId !== null && this.names.projects.get(task.projectId)?.confidential === true;
    if (this.masks(ownerId) && (!task.visible || confidential)) {
      return { key: `masked:${HIDDEN_TASK}`, name: HIDDEN_TASK, id: null, hidden: true, date: task.date, project };
    }
    return { key: `id:${task.id}`, name: task.title, id: task.id, hidden: false, date: task.date, project };
  }
}
