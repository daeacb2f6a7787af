/**
 * One person's day in the demo: a working day of sessions (focus work, meetings, chat, planning,
 * reviews) logged as an activity every five minutes, with lunch and short breaks; weekends mostly
 * empty; a day off now and then; day comments on some days. Each day draws from its own seeded
 * generator, so any day can be produced on its own and memory stays constant however many there are.
 */
import type { ActivityRecord, DayCommentRecord, TaskRecord } from '../dataset/records.ts';
import { localNoon, weekdayOf } from '../lib/time.ts';
import {
  BUGS,
  CATEGORIES,
  CHANNELS,
  COMPONENTS,
  CUSTOMERS,
  type CategoryKey,
  DAY_COMMENTS,
  DAY_OFF_COMMENTS,
  FEATURES,
  FILES,
  MEETINGS,
} from './catalog.ts';
import { type Random, createRandom } from './random.ts';
import type { DemoPerson, WorkProject } from './workspace.ts';

export interface DayRecords {
  tasks: TaskRecord[];
  activities: ActivityRecord[];
  comment: DayCommentRecord | null;
}

const SLOT_MINUTES = 5;
const CATEGORY_ID = Object.fromEntries(CATEGORIES.map((c) => [c.key, c.id])) as Record<CategoryKey, string>;

const FOCUS_TASKS = [
  ['Implement {feature}', 'First version of {feature} behind a feature flag, with tests.'],
  ['Fix {bug}', 'Reproduce the {bug}, find the cause and add a regression test.'],
  ['Refactor the {component}', 'Split the {component} into smaller modules before the next feature lands.'],
  ['Write tests for the {component}', 'Cover the edge cases we keep hitting in production.'],
  ['Design doc: {feature}', 'Options, trade-offs and a recommendation for {feature}.'],
  ['Investigate {bug}', 'Collect logs and timings; decide whether it blocks the release.'],
] as const;

const HEADLINES: Record<CategoryKey, readonly string[]> = {
  focus: [
    '{file} — Visual Studio Code',
    'Terminal — npm test',
    'Terminal — git rebase',
    '{feature} — Figma',
    'localhost:3000 — {feature}',
  ],
  meetings: ['Zoom — {title}', 'Google Meet — {title}', 'Meeting room — {title}'],
  communication: ['Slack — #{channel}', 'Mail — Inbox', 'Mail — Re: {feature}', 'Helpdesk — ticket #{n}'],
  planning: ['Linear — {title}', 'Notion — {title}', 'Calendar — next week', 'Spreadsheet — estimates'],
  review: ['Pull request #{n} · {feature}', 'GitHub — review comments', '{file} — diff'],
  learning: ['Course — chapter {n}', 'Video — {feature} in practice', 'Book notes — {component}'],
};

const DESCRIPTIONS: Record<CategoryKey, readonly string[]> = {
  focus: ['Editing {file}', 'Running the test suite', 'Reading logs', 'Sketching the {feature} screens'],
  meetings: ['Notes in the shared agenda', 'Screen sharing'],
  communication: ['Answering questions about {feature}', 'Catching up on messages'],
  planning: ['Moving tickets for the next sprint', 'Estimating {feature}'],
  review: ['Reviewing changes to the {component}', 'Leaving comments on edge cases'],
  learning: ['Taking notes', 'Trying the exercises'],
};

interface Session {
  kind: CategoryKey;
  minutes: number;
}

function pickWord(name: string, random: Random): string {
  switch (name) {
    case 'feature':
      return random.pick(FEATURES);
    case 'bug':
      return random.pick(BUGS);
    case 'component':
      return random.pick(COMPONENTS);
    case 'file':
      return random.pick(FILES);
    case 'channel':
      return random.pick(CHANNELS);
    case 'n':
      return String(random.int(12, 980));
    default:
      return name;
  }
}

/** Fills `{name}` placeholders from `given`, else with a random word of that kind. */
function fill(template: string, random: Random, given: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => given[name] ?? pickWord(name, random));
}

function pickProject(projects: WorkProject[], date: string, random: Random): WorkProject | null {
  const usable = projects.filter((p) => p.until === null || date <= p.until);
  if (usable.length === 0) return null;
  return random.weighted(usable.map((p) => [p, p.weight] as const));
}

/** Mostly the team's projects; now and then a side project (never the admin one). */
function focusProjects(person: DemoPerson, random: Random): WorkProject[] {
  const side = person.personalProjects.slice(1);
  if (person.teamProjects.length === 0) return side.length > 0 ? side : person.personalProjects;
  return side.length > 0 && random.chance(0.1) ? side : person.teamProjects;
}

function sessionLength(kind: CategoryKey, random: Random): number {
  switch (kind) {
    case 'focus':
      return random.int(6, 24) * 5;
    case 'meetings':
      return random.int(1, 4) * 15;
    case 'communication':
      return random.int(2, 6) * 5;
    case 'planning':
      return random.int(3, 9) * 5;
    case 'review':
      return random.int(3, 9) * 5;
    case 'learning':
      return random.int(4, 12) * 5;
  }
}

/** The day's sessions and pauses, from the start of work until the tracked time is reached. */
function planWorkDay(person: DemoPerson, random: Random): { start: number; blocks: (Session | { pause: number })[] } {
  const start = person.startMinute + random.int(-3, 4) * SLOT_MINUTES;
  const target = Math.round((person.dailyTargetMinutes * (0.85 + random.next() * 0.25)) / SLOT_MINUTES) * SLOT_MINUTES;
  const lunchAt = 12 * 60 + random.int(0, 8) * SLOT_MINUTES;
  // The day opens with the inbox.
  const inbox = random.int(2, 5) * SLOT_MINUTES;
  const blocks: (Session | { pause: number })[] = [{ kind: 'communication', minutes: inbox }];
  let clock = start + inbox;
  let tracked = inbox;
  let lunched = false;
  while (tracked < target) {
    if (!lunched && clock >= lunchAt) {
      const pause = random.int(6, 12) * SLOT_MINUTES;
      blocks.push({ pause });
      clock += pause;
      lunched = true;
      continue;
    }
    const kind = random.weighted<CategoryKey>([
      ['focus', 50],
      ['meetings', 18],
      ['communication', 14],
      ['planning', 8],
      ['review', 7],
      ['learning', 3],
    ]);
    const minutes = Math.min(sessionLength(kind, random), target - tracked);
    blocks.push({ kind, minutes });
    clock += minutes;
    tracked += minutes;
    if (random.chance(0.15)) {
      const pause = random.int(2, 4) * SLOT_MINUTES;
      blocks.push({ pause });
      clock += pause;
    }
  }
  return { start, blocks };
}

/** Builds the tasks of a day on demand and hands out the one each session belongs to. */
class TaskBook {
  readonly tasks: TaskRecord[] = [];
  private readonly byTitle = new Map<string, TaskRecord>();
  private readonly focus: TaskRecord[] = [];
  private readonly person: DemoPerson;
  private readonly date: string;
  private readonly random: Random;

  constructor(person: DemoPerson, date: string, random: Random) {
    this.person = person;
    this.date = date;
    this.random = random;
  }

  private task(title: string, fields: Omit<TaskRecord, 'id' | 'userId' | 'date' | 'title'>): TaskRecord {
    const existing = this.byTitle.get(title);
    if (existing) return existing;
    const task: TaskRecord = {
      id: `task.${this.person.index}.${this.date}.${this.tasks.length + 1}`,
      userId: this.person.id,
      date: this.date,
      title,
      ...fields,
    };
    this.tasks.push(task);
    this.byTitle.set(title, task);
    return task;
  }

  /** The task of a session, or null for time logged without one. */
  forSession(kind: CategoryKey): TaskRecord | null {
    const { person, date, random } = this;
    switch (kind) {
      case 'focus': {
        // A day has one to three focus tasks that the focus sessions return to.
        if (this.focus.length === 0 || (this.focus.length < 3 && random.chance(0.35))) {
          const [title, description] = random.pick(FOCUS_TASKS);
          // Title and description speak of the same feature, bug or component.
          const vars = { feature: random.pick(FEATURES), bug: random.pick(BUGS), component: random.pick(COMPONENTS) };
          const task = this.task(fill(title, random, vars), {
            description: fill(description, random, vars),
            projectId: pickProject(focusProjects(person, random), date, random)?.id ?? null,
          });
          this.focus.push(task);
          return task;
        }
        return random.pick(this.focus);
      }
      case 'meetings': {
        const roll = random.next();
        if (roll < 0.2) {
          // 1:1s are private conversations: hidden from teammates' reports.
          return this.task(`1:1 with ${random.pick(person.colleagues)}`, { visible: false, projectId: null });
        }
        if (roll < 0.35) {
          const customer = random.pick(CUSTOMERS);
          return this.task(`Customer call: ${customer}`, {
            description: `Walk ${customer} through the ${random.pick(FEATURES)} rollout and collect feedback.`,
            projectId: pickProject(person.teamProjects, date, random)?.id ?? null,
          });
        }
        return this.task(random.pick(MEETINGS), {
          projectId: pickProject(person.teamProjects, date, random)?.id ?? null,
        });
      }
      case 'communication':
        if (random.chance(0.6)) return null;
        return this.task(
          random.chance(0.5)
            ? 'Answer support tickets'
            : `Write release notes for v${random.int(2, 4)}.${random.int(0, 19)}`,
          {
            projectId: pickProject(person.teamProjects, date, random)?.id ?? null,
          },
        );
      case 'planning': {
        const admin = person.personalProjects[0];
        if (admin && random.chance(0.1)) return this.task('Expense report and time sheet', { projectId: admin.id });
        const project = pickProject(
          person.teamProjects.length > 0 ? person.teamProjects : person.workProjects,
          date,
          random,
        );
        const title = random.pick([
          'Plan next sprint',
          `Roadmap review: ${project?.name ?? 'next quarter'}`,
          `Estimate ${random.pick(FEATURES)}`,
        ]);
        return this.task(title, { projectId: project?.id ?? null });
      }
      case 'review': {
        const feature = random.pick(FEATURES);
        return this.task(`Review pull request #${random.int(100, 2400)}: ${feature}`, {
          description: `Check the ${feature} change for edge cases and missing tests.`,
          projectId:
            pickProject(person.teamProjects.length > 0 ? person.teamProjects : person.workProjects, date, random)?.id ??
            null,
        });
      }
      case 'learning':
        return this.task(`Study: ${random.pick(FEATURES)}`, {
          projectId: pickProject(person.personalProjects.slice(1), date, random)?.id ?? null,
        });
    }
  }
}

/** Activities of one session, one every five minutes from `startMinute` (local). */
function sessionActivities(
  person: DemoPerson,
  date: string,
  noon: number,
  session: Session,
  startMinute: number,
  task: TaskRecord | null,
  random: Random,
  nextId: () => string,
): ActivityRecord[] {
  const out: ActivityRecord[] = [];
  const title = task?.title ?? 'Inbox';
  let headline = fill(random.pick(HEADLINES[session.kind]), random, { title });
  // Time without a task may still belong to a project (chat in a team channel).
  const projectId =
    task === null && random.chance(0.3) ? (pickProject(person.teamProjects, date, random)?.id ?? null) : null;
  for (let minute = startMinute; minute < startMinute + session.minutes; minute += SLOT_MINUTES) {
    if (random.chance(0.25)) headline = fill(random.pick(HEADLINES[session.kind]), random, { title });
    const activity: ActivityRecord = {
      id: nextId(),
      userId: person.id,
      // Work hours never cross a daylight-saving change (those happen at night), so the offset
      // at local noon holds for the whole working day.
      start: new Date(noon + (minute - 12 * 60) * 60_000).toISOString(),
      durationMinutes: SLOT_MINUTES,
      headline,
      description: random.chance(0.5) ? fill(random.pick(DESCRIPTIONS[session.kind]), random) : null,
      taskId: task?.id ?? null,
      categoryId: CATEGORY_ID[session.kind],
    };
    if (projectId) activity.projectId = projectId;
    out.push(activity);
  }
  return out;
}

/** Tasks start with their first activity. */
function withCreatedAt(day: DayRecords): DayRecords {
  for (const task of day.tasks) task.createdAt = day.activities.find((a) => a.taskId === task.id)?.start;
  return day;
}

/** Everything `person` logged on local `date`. */
export function buildDay(person: DemoPerson, date: string, seed: string): DayRecords {
  return withCreatedAt(planDay(person, date, seed));
}

function planDay(person: DemoPerson, date: string, seed: string): DayRecords {
  const random = createRandom(`${seed}:day:${person.id}:${date}`);
  const weekday = weekdayOf(date);
  const noon = localNoon(date, person.timezone);
  const book = new TaskBook(person, date, random);
  const activities: ActivityRecord[] = [];
  let counter = 0;
  const nextId = () => `act.${person.index}.${date}.${++counter}`;
  const comment = (text: string): DayCommentRecord => ({ userId: person.id, date, comment: fill(text, random) });

  if (weekday === 0 || weekday === 6) {
    if (random.chance(0.08)) {
      const session: Session = {
        kind: random.chance(0.5) ? 'learning' : 'focus',
        minutes: random.int(6, 18) * SLOT_MINUTES,
      };
      const task = session.kind === 'learning' ? book.forSession('learning') : book.forSession('focus');
      activities.push(
        ...sessionActivities(
          person,
          date,
          noon,
          session,
          10 * 60 + random.int(0, 48) * SLOT_MINUTES,
          task,
          random,
          nextId,
        ),
      );
      return {
        tasks: book.tasks,
        activities,
        comment: random.chance(0.3) ? comment('Caught up on a few things over the weekend.') : null,
      };
    }
    // Now and then a weekend day holds only a comment, which reports show without tracked time.
    return { tasks: [], activities: [], comment: random.chance(0.03) ? comment(random.pick(DAY_OFF_COMMENTS)) : null };
  }

  if (random.chance(0.04)) {
    return { tasks: [], activities: [], comment: random.chance(0.7) ? comment(random.pick(DAY_OFF_COMMENTS)) : null };
  }

  const plan = planWorkDay(person, random);
  let clock = plan.start;
  for (const block of plan.blocks) {
    if ('pause' in block) {
      clock += block.pause;
      continue;
    }
    const task = book.forSession(block.kind);
    activities.push(...sessionActivities(person, date, noon, block, clock, task, random, nextId));
    clock += block.minutes;
  }
  return { tasks: book.tasks, activities, comment: random.chance(0.2) ? comment(random.pick(DAY_COMMENTS)) : null };
}
