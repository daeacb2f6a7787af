/** The rows POST /report answers with, per level (decisions §4.2–§4.5, §4.8). */
import type { NamedMinutes } from './tally.ts';

/** Present in team reports only. */
interface TeamFields {
  user?: string;
  user_email?: string;
}

interface TimeLists {
  /** Absent with includeProjects false. */
  projects?: NamedMinutes[];
  /** Absent with includeCategories false. */
  categories?: NamedMinutes[];
  tasks: { title: string; duration: number }[];
}

export interface DayRow extends TeamFields, TimeLists {
  id: string;
  date: string;
  duration: number;
  duration_relative: number;
  comment: string;
}

export interface WeekRow extends TeamFields, TimeLists {
  id: string;
  week: string;
  week_end: string;
  duration: number;
  duration_relative: number;
}

export interface TaskRow extends TeamFields {
  id: string;
  task_id: string | null;
  task: string;
  date: string;
  duration: number;
  project?: string | null;
  project_id?: string | null;
  categories?: NamedMinutes[];
}

export interface ActivityRow {
  id: string;
  timestamp: number;
  timestampIso: string;
  time: string;
  duration: number;
  headline: string;
  description: string | null;
  task: string | null;
  task_id: string | null;
  project?: string | null;
  project_id?: string | null;
  category?: string | null;
  category_emoji?: string | null;
}

export type ReportRow = DayRow | WeekRow | TaskRow | ActivityRow;
