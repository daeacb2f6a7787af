/**
 * Writes a synthetic NDJSON dataset of `activities` activities for a few users, computed line by
 * line so memory stays flat however large the file: users, categories, projects, then every
 * task, then every activity (tasks come first because activities refer to them).
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { DAY_MS } from '../../src/lib/time.ts';

const USERS = [
  { id: 'u_bench_0', timezone: 'Europe/Berlin' },
  { id: 'u_bench_1', timezone: 'America/New_York' },
  { id: 'u_bench_2', timezone: 'Asia/Tokyo' },
  { id: 'u_bench_3', timezone: 'UTC' },
];
const CATEGORIES = ['c_focus', 'c_meet', 'c_comms'];
const PROJECTS = ['p_api', 'p_web', 'p_ops'];
const TASKS_PER_DAY = 4;
const ACTIVITIES_PER_TASK = 24;
const ACTIVITY_MINUTES = 5;
const FIRST_DAY = Date.parse('2019-01-01T00:00:00Z');

/** Every record of the dataset, in file order. */
function* records(activities: number): Generator<object> {
  const perDay = USERS.length * TASKS_PER_DAY * ACTIVITIES_PER_TASK;
  const days = Math.ceil(activities / perDay);
  for (const [i, u] of USERS.entries()) {
    yield { type: 'user', id: u.id, email: `bench${i}@example.com`, timezone: u.timezone };
  }
  for (const [i, id] of CATEGORIES.entries()) yield { type: 'category', id, name: `Category ${i}` };
  for (const [i, id] of PROJECTS.entries())
    yield { type: 'project', id, name: `Project ${i}`, createdBy: USERS[0]!.id };
  const taskId = (day: number, user: number, task: number) => `k_${day}_${user}_${task}`;
  for (let day = 0; day < days; day++) {
    const date = new Date(FIRST_DAY + day * DAY_MS).toISOString().slice(0, 10);
    for (let user = 0; user < USERS.length; user++) {
      for (let task = 0; task < TASKS_PER_DAY; task++) {
        yield {
          type: 'task',
          id: taskId(day, user, task),
          userId: USERS[user]!.id,
          date,
          title: `Task ${task} of day ${day}`,
          projectId: PROJECTS[(day + task) % PROJECTS.length],
        };
      }
    }
  }
  let written = 0;
  for (let day = 0; day < days; day++) {
    for (let user = 0; user < USERS.length; user++) {
      for (let task = 0; task < TASKS_PER_DAY; task++) {
        for (let step = 0; step < ACTIVITIES_PER_TASK; step++) {
          if (written++ >= activities) return;
          const start =
            FIRST_DAY + day * DAY_MS + 8 * 3_600_000 + (task * ACTIVITIES_PER_TASK + step) * ACTIVITY_MINUTES * 60_000;
          yield {
            type: 'activity',
            id: `a_${day}_${user}_${task}_${step}`,
            userId: USERS[user]!.id,
            start: new Date(start).toISOString(),
            durationMinutes: ACTIVITY_MINUTES,
            headline: `Step ${step} of task ${task}`,
            description: 'Worked in the editor and the browser',
            taskId: taskId(day, user, task),
            categoryId: CATEGORIES[step % CATEGORIES.length],
          };
        }
      }
    }
  }
}

/** Writes the dataset to `path`; returns the number of records. */
export async function writeActivityDataset(path: string, activities: number): Promise<number> {
  const out = createWriteStream(path);
  let count = 0;
  let chunk = '';
  for (const record of records(activities)) {
    chunk += `${JSON.stringify(record)}\n`;
    count++;
    if (chunk.length > 1 << 16) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await finished(out);
  return count;
}
