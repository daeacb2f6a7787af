/**
 * The benchmark dataset: `daybook demo` output (100 users × 365 days by default), generated
 * once into bench/.data/, imported once per database, and scanned once for the facts the
 * scenarios need (keys, the heaviest user, the largest team, words to search for).
 */
import { spawn } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { openStorage } from '../src/storage/database.ts';
import { root } from './harness.ts';

export const dataDir = join(root, 'bench/.data');

export interface DatasetFacts {
  file: string;
  activities: number;
  /** Plaintext keys with every scope, by user id. */
  keys: Record<string, string>;
  /** Users on the Core plan or higher (the paid endpoints answer them). */
  paidUsers: string[];
  heavyUser: string;
  /** Largest team by active members, with the key of one active member. */
  team: { id: string; members: number; memberKey: string } | null;
  /** Start of the last activity (Unix ms): ranges end at the next local midnight of it. */
  lastStart: number;
  words: string[];
}

export function run(command: string, args: string[], env: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited ${code}`)),
    );
  });
}

/**
 * The database the request scenarios run against: DAYBOOK_DATABASE_URL when it names
 * PostgreSQL, else the SQLite file beside the dataset.
 */
export function benchDatabaseUrl(users: number, days: number, seed: number): string {
  const url = process.env.DAYBOOK_DATABASE_URL ?? '';
  if (url.startsWith('postgres')) return url;
  return `sqlite:${join(dataDir, `bench-${users}x${days}-seed${seed}.db`)}`;
}

export async function ensureDataset(users: number, days: number, seed: number): Promise<string> {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, `demo-${users}x${days}-seed${seed}.ndjson`);
  if (!existsSync(file)) {
    console.error(`bench: generating ${users} users × ${days} days into ${file}`);
    const partial = file.replace(/\.ndjson$/, '.partial.ndjson');
    await run('bash', [
      'bin/daybook',
      'demo',
      '--users',
      String(users),
      '--days',
      String(days),
      '--seed',
      String(seed),
      '--out',
      partial,
    ]);
    renameSync(partial, file);
  }
  return file;
}

const ALL_SCOPES = ['reports:read', 'summaries:read', 'projects:read', 'projects:write', 'search:read', 'user:read'];

export async function datasetFacts(file: string): Promise<DatasetFacts> {
  const cache = `${file}.facts.json`;
  if (existsSync(cache)) {
    const cached = JSON.parse(readFileSync(cache, 'utf8')) as DatasetFacts;
    if (cached.paidUsers) return cached;
  }
  const keys: Record<string, string> = {};
  const perUser = new Map<string, number>();
  const paidUsers: string[] = [];
  const teams: { id: string; active: string[] }[] = [];
  const wordCounts = new Map<string, number>();
  let activities = 0;
  let lastStart = 0;
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (!line) continue;
    const record = JSON.parse(line) as Record<string, unknown>;
    switch (record.type) {
      case 'user':
        if ((record.plan ?? 'core') !== 'free') paidUsers.push(record.id as string);
        break;
      case 'activity': {
        activities++;
        const user = record.userId as string;
        perUser.set(user, (perUser.get(user) ?? 0) + 1);
        lastStart = Math.max(lastStart, Date.parse(record.start as string));
        break;
      }
      case 'apiKey': {
        const scopes = record.scopes as string[];
        if (record.key && !record.revoked && ALL_SCOPES.every((s) => scopes.includes(s))) {
          keys[record.userId as string] ??= record.key as string;
        }
        break;
      }
      case 'team': {
        const members = (record.members ?? []) as { userId: string; status?: string }[];
        teams.push({
          id: record.id as string,
          active: members.filter((m) => (m.status ?? 'active') === 'active').map((m) => m.userId),
        });
        break;
      }
      case 'task':
        for (const word of String(record.title)
          .toLowerCase()
          .split(/[^\p{L}\p{N}]+/u)) {
          if (word.length >= 4) wordCounts.set(word, (wordCounts.get(word) ?? 0) + 1);
        }
        break;
    }
  }
  const heavyUser = [...perUser.entries()]
    .filter(([u]) => keys[u] && paidUsers.includes(u))
    .sort((a, b) => b[1] - a[1])[0]?.[0];
  if (!heavyUser) throw new Error(`${file} has no user with an all-scope plaintext key`);
  const largest = teams
    .map((t) => ({ ...t, withKey: t.active.find((u) => keys[u] && paidUsers.includes(u)) }))
    .filter((t) => t.withKey)
    .sort((a, b) => b.active.length - a.active.length)[0];
  const facts: DatasetFacts = {
    file,
    activities,
    keys,
    paidUsers: paidUsers.filter((u) => keys[u]),
    heavyUser,
    team: largest ? { id: largest.id, members: largest.active.length, memberKey: keys[largest.withKey!]! } : null,
    lastStart,
    words: [...wordCounts.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 60)
      .map(([w]) => w),
  };
  writeFileSync(cache, JSON.stringify(facts));
  return facts;
}

/** Each user's ten latest days with a stored day summary: the dates /message answers for. */
export async function summaryDaysOf(databaseUrl: string, userIds: string[]): Promise<Map<string, string[]>> {
  const storage = openStorage(databaseUrl);
  try {
    const rows = await storage.db
      .selectFrom('summaries')
      .select(['user_id', 'period_start'])
      .where('level', '=', 'day')
      .where('user_id', 'in', userIds)
      .orderBy('period_start', 'desc')
      .execute();
    const days = new Map<string, string[]>();
    for (const { user_id: user, period_start: date } of rows) {
      const list = days.get(user) ?? [];
      if (list.length < 10) list.push(date);
      days.set(user, list);
    }
    return days;
  } finally {
    await storage.close();
  }
}
