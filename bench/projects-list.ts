/**
 * What `GET /projects` costs a user with many projects, unpaged and by pages: a scratch database
 * with one user who sees PROJECTS projects (half personal, half of a team; a tenth archived, a
 * third never used, a tenth never updated) beside another user's as many, requests through
 * `app.inject()` one at a time, each printed as mean ms and req/s.
 *
 *   bash scripts/node.sh bench/projects-list.ts [--projects 3400] [--rounds 200] [--explain]
 *
 * SQLite by default (a file in the system's temporary directory); with DAYBOOK_DATABASE_URL
 * naming PostgreSQL, that URL is the admin connection with which a scratch database is created
 * and dropped. `--explain` prints each list query's plan (EXPLAIN QUERY PLAN / EXPLAIN ANALYZE).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CompiledQuery } from 'kysely';
import pg from 'pg';
import { importDataset } from '../src/dataset/import.ts';
import { loadConfig } from '../src/config.ts';
import { buildApp, loggerOptions } from '../src/http/app.ts';
import { MemoryRateLimiter } from '../src/http/rate-limit.ts';
import { migrate, openStorage } from '../src/storage/database.ts';
import { projectListStatement } from '../src/storage/projects.ts';

const { values } = parseArgs({
  options: {
    projects: { type: 'string', default: '3400' },
    rounds: { type: 'string', default: '200' },
    explain: { type: 'boolean', default: false },
  },
});
const projectCount = Number(values.projects);
const rounds = Number(values.rounds);
const KEY = 'dbk_bench_projects_0123456789abcdef';
const DAY = 86_400_000;
const base = Date.parse('2026-01-01T00:00:00Z');

function dataset() {
  const projects = [];
  const activities = [];
  for (let i = 0; i < 2 * projectCount; i++) {
    const mine = i < projectCount;
    const id = `p_${String(i).padStart(6, '0')}`;
    projects.push({
      id,
      name: `Project ${i}`,
      createdBy: mine ? 'u_bench' : 'u_other',
      teamId: mine && i % 2 === 1 ? 't_bench' : null,
      archived: i % 10 === 3,
      // Pairs share a creation time: ties are ordered by id.
      createdAt: new Date(base + Math.floor(i / 2) * 60_000).toISOString(),
      ...(i % 10 === 5 ? {} : { updatedAt: new Date(base + ((i * 7919) % projectCount) * 90_000).toISOString() }),
    });
    if (i % 3 !== 0)
      for (let a = 0; a < 3; a++)
        activities.push({
          id: `a_${i}_${a}`,
          userId: mine ? 'u_bench' : 'u_other',
          start: new Date(base + ((i * 104_729 + a * 7) % 300) * DAY + a * 3_600_000).toISOString(),
          durationMinutes: 30,
          headline: `Work ${a}`,
          projectId: id,
        });
  }
  return {
    version: 1,
    users: [
      { id: 'u_bench', email: 'bench@example.com', handle: 'bench', timezone: 'UTC', plan: 'core' },
      { id: 'u_other', email: 'other@example.com', handle: 'other', timezone: 'UTC', plan: 'core' },
    ],
    teams: [{ id: 't_bench', name: 'Bench', members: [{ userId: 'u_bench', status: 'active' }] }],
    projects,
    activities,
    apiKeys: [{ id: 'key_bench', userId: 'u_bench', name: 'bench', key: KEY, scopes: ['projects:read'] }],
  };
}

const adminUrl = process.env.DAYBOOK_DATABASE_URL ?? '';
const postgres = adminUrl.startsWith('postgres');
const scratch = `daybook_bench_projects_${process.pid}`;
let url: string;
if (postgres) {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${scratch}`);
  await admin.end();
  const u = new URL(adminUrl);
  u.pathname = `/${scratch}`;
  url = u.toString();
} else {
  url = `sqlite:${join(tmpdir(), `${scratch}.db`)}`;
}
const file = join(tmpdir(), `${scratch}.json`);
writeFileSync(file, JSON.stringify(dataset()));

const storage = openStorage(url);
try {
  await migrate(storage);
  await importDataset(storage, file);
  if (postgres) await storage.db.executeQuery(CompiledQuery.raw('analyze'));
  const config = {
    ...loadConfig({ DAYBOOK_DATABASE_URL: url }),
    rateLimitPerMinute: 1e9,
    authFailuresPerMinute: 1e9,
    keyCacheMs: 3_600_000,
  };
  const app = await buildApp(
    { storage, config, rateLimiter: new MemoryRateLimiter(), now: Date.now },
    { logger: loggerOptions('warn') },
  );
  await app.ready();
  const get = async (path: string) => {
    const res = await app.inject({ method: 'GET', url: path, headers: { 'x-api-key': KEY } });
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
    return res.json() as { projects: unknown[]; nextCursor?: string | null };
  };
  const visible = (await get('/projects?includeArchived=true')).projects.length;
  console.log(`${postgres ? 'postgres' : 'sqlite'}: ${visible} visible projects (${projectCount * 2} in all)`);
  console.log(`${'request'.padEnd(44)} ${'rows'.padStart(5)} ${'mean ms'.padStart(8)} ${'req/s'.padStart(7)}`);

  const measure = async (label: string, path: () => string) => {
    let rows = 0;
    for (let i = 0; i < 5; i++) await get(path());
    const started = performance.now();
    for (let i = 0; i < rounds; i++) rows = (await get(path())).projects.length;
    const ms = (performance.now() - started) / rounds;
    console.log(
      `${label.padEnd(44)} ${String(rows).padStart(5)} ${ms.toFixed(2).padStart(8)} ${(1000 / ms).toFixed(0).padStart(7)}`,
    );
  };
  for (const sort of ['createdAt', 'updatedAt', 'usedAt']) {
    await measure(`unpaged sort=${sort}`, () => `/projects?sort=${sort}`);
    await measure(`limit=50 sort=${sort} (first page)`, () => `/projects?sort=${sort}&limit=50`);
    // A page from the middle of the list: the cursor after 1,500 projects.
    const first = await get(`/projects?sort=${sort}&limit=1000`);
    const middle = await get(`/projects?sort=${sort}&limit=500&cursor=${first.nextCursor}`);
    await measure(
      `limit=50 sort=${sort} (after 1,500)`,
      () => `/projects?sort=${sort}&limit=50&cursor=${middle.nextCursor}`,
    );
  }
  let walked = 0;
  const started = performance.now();
  let cursor: string | null | undefined;
  let pages = 0;
  do {
    const page = await get(`/projects?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
    walked += page.projects.length;
    cursor = page.nextCursor;
    pages++;
  } while (cursor);
  console.log(
    `walk of every page, limit=50: ${pages} pages, ${walked} projects, ${(performance.now() - started).toFixed(0)} ms`,
  );

  if (values.explain) {
    for (const sort of ['createdAt', 'updatedAt', 'usedAt'] as const)
      for (const limit of [undefined, 51]) {
        const statement = projectListStatement(storage.db, 'u_bench', { sort, includeArchived: false, limit });
        const explain = postgres ? 'explain (analyze, costs off, timing off)' : 'explain query plan';
        const { rows } = await storage.db.executeQuery(
          CompiledQuery.raw(`${explain} ${statement.sql}`, [...statement.parameters]),
        );
        console.log(`\n-- sort=${sort}${limit ? ` limit=${limit}` : ' unpaged'}`);
        for (const row of rows as Record<string, unknown>[])
          console.log(postgres ? row['QUERY PLAN'] : `${' '.repeat(Number(row.parent) ? 2 : 0)}${row.detail}`);
      }
  }
  await app.close();
} finally {
  await storage.close();
  rmSync(file, { force: true });
  if (postgres) {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${scratch} with (force)`);
    await admin.end();
  } else {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${url.slice('sqlite:'.length)}${suffix}`, { force: true });
  }
}
