/**
 * The first start of `daybook serve` on an empty database creates a small demo workspace, so
 * that the README's start command ends with something to try: a key and three curl commands.
 * It happens once per database (recorded in daybook_meta), never with NODE_ENV=production or
 * DAYBOOK_DEMO=off (or false), and never on a database that already holds users.
 */
import { randomBytes } from 'node:crypto';
import { demoSetting } from './config.ts';
import { importDemo } from './demo/import-demo.ts';
import type { DemoKey } from './demo/workspace.ts';
import { SCOPES } from './services/scopes.ts';
import type { Storage } from './storage/database.ts';
import { claimFirstRun, hasUsers, recordFirstRun, releaseFirstRun } from './storage/first-run.ts';

export const FIRST_RUN_DEMO = { users: 5, days: 30, seed: '1' } as const;

export interface FirstRunDemo {
  /** The first person's key with every scope. */
  key: DemoKey;
  users: number;
  days: number;
  activities: number;
  summaries: number;
}

export interface FirstRunOptions {
  env: NodeJS.ProcessEnv;
  now: number;
  log?: (message: string) => void;
}

function demoAllowed(env: NodeJS.ProcessEnv): boolean {
  return env.NODE_ENV !== 'production' && demoSetting(env);
}

/** Seeds the demo when this is the database's first start; null otherwise. */
export async function seedDemoOnFirstRun(storage: Storage, options: FirstRunOptions): Promise<FirstRunDemo | null> {
  if (!demoAllowed(options.env)) return null;
  if (!(await claimFirstRun(storage.db, options.now))) return null;
  try {
    if (await hasUsers(storage.db)) {
      await recordFirstRun(storage.db, options.now, 'the database already had data; no demo');
      return null;
    }
    options.log?.(
      `daybook: first start on an empty database, creating a demo workspace (${FIRST_RUN_DEMO.users} people, ${FIRST_RUN_DEMO.days} days)…`,
    );
    // The data follows the usual seed; the keys get a random salt, so they cannot be derived.
    const demo = await importDemo(storage, {
      ...FIRST_RUN_DEMO,
      now: options.now,
      keySalt: randomBytes(32).toString('hex'),
    });
    await recordFirstRun(storage.db, options.now, 'demo workspace created');
    const key = demo.keys.find((k) => !k.revoked && k.scopes.length === SCOPES.length) ?? demo.keys[0]!;
    return {
      key,
      users: demo.counts.user,
      days: FIRST_RUN_DEMO.days,
      activities: demo.counts.activity,
      summaries: demo.summaries,
    };
  } catch (err) {
    await releaseFirstRun(storage.db);
    throw err;
  }
}

/** What the terminal shows after the first start: where, which key, and what to paste. */
/** What a start that did not seed (a restart) prints: where the server is and how to get a key. */
export function restartBanner(url: string): string {
  return [
    '',
    `Daybook is running at ${url} (API reference: ${url}/docs)`,
    'A key for a user: bin/daybook keys create --user <id> --name <what it is for>   (ids: bin/daybook users list)',
    '',
  ].join('\n');
}

export function firstRunBanner(url: string, demo: FirstRunDemo): string {
  const header = `-H 'x-api-key: ${demo.key.key}'`;
  return [
    '',
    `Daybook is running at ${url}`,
    '',
    `This was the first start on an empty database, so it now holds a demo workspace:`,
    `${demo.users} people, ${demo.days} days, ${demo.activities} activities, ${demo.summaries} summaries.`,
    `Demo API key of ${demo.key.userName} (all scopes):`,
    '',
    `  ${demo.key.key}`,
    '',
    'Try it:',
    '',
    `  curl -s ${url}/user ${header}`,
    `  curl -s -X POST ${url}/report ${header} -H 'content-type: application/json' -d '{}'`,
    `  curl -s ${url}/projects ${header}`,
    '',
    `API reference: ${url}/docs (paste the key under "Authorize")`,
    'The demo is created only once. For an empty database instead, start on a new database with DAYBOOK_DEMO=off',
    '(for example DAYBOOK_DEMO=off DAYBOOK_DATABASE_URL=sqlite:./data/empty.db npm start).',
    '',
  ].join('\n');
}
