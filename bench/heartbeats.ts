/**
 * Heartbeat benchmarks (docs/performance.md, "Heartbeats"): figures, not pass/fail.
 *
 * 1. `load`: 200 simulated editors each sending a bulk of 25 heartbeats (`heartbeats.bulk`,
 *    as wakatime-cli sends it) per 2 minutes of their own clock, compressed in time: 200 editors
 *    send 1.7 bulks a second in real time; here they send BENCH_HEARTBEAT_RATE (20) a second, 12
 *    times faster, for BENCH_HEARTBEAT_SECONDS (30), arriving at random as independent editors'
 *    would (open loop, bench/lib/open-loop.ts); then as fast as the server answers on 10
 *    connections for BENCH_SECONDS (10) (saturation). Against a `daybook serve` process; prints
 *    p50 and p99 per bulk and the server's CPU time per bulk. Target p99 ≤ 20 ms at the
 *    compressed rate.
 * 2. `recompute`: one user's day holding 20,000 heartbeats, then one heartbeat more in that day,
 *    which recomputes it: the time of that request, in process. Target ≤ 50 ms.
 *
 * SQLite by default (a scratch file in bench/.data/); PostgreSQL when DAYBOOK_DATABASE_URL is a
 * postgres:// URL (a scratch database beside it, dropped after).
 *
 *   bash scripts/node.sh bench/heartbeats.ts [load] [recompute]
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { importDataset } from '../src/dataset/import.ts';
import { type HeartbeatContext, recordHeartbeats } from '../src/services/heartbeats/record.ts';
import { loadViewer } from '../src/services/projects/access.ts';
import { findUser } from '../src/storage/accounts.ts';
import { migrate, openStorage, type Storage } from '../src/storage/database.ts';
import { load, root, startDaybook } from './harness.ts';
import { openLoop } from './lib/open-loop.ts';
import type { LoadRequest } from './lib/requests.ts';

const EDITORS = 200;
/** Bulks a second offered: 200 editors at one bulk per 2 minutes, 12 times faster than real time. */
const RATE = Number(process.env.BENCH_HEARTBEAT_RATE ?? 20);
const BULK = 25;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** The compressed rate runs longer: 600 bulks, so that p99 is not the second slowest of 200. */
const RATE_SECONDS = Number(process.env.BENCH_HEARTBEAT_SECONDS ?? 30);
const DAY_HEARTBEATS = 20_000;
const dataDir = join(root, 'bench', '.data');
const baseUrl = process.env.DAYBOOK_DATABASE_URL ?? '';
const dialect = baseUrl.startsWith('postgres') ? 'postgres' : 'sqlite';
const wanted = process.argv.slice(2);
const runs = (name: string) => wanted.length === 0 || wanted.includes(name);

/** A fresh database of the dialect, and how to remove it. */
async function scratchDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (dialect === 'sqlite') {
    mkdirSync(dataDir, { recursive: true });
    const file = join(dataDir, `${name}.db`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    return { url: `sqlite:${file}`, drop: async () => rmSync(file, { force: true }) };
  }
  const database = `${new URL(baseUrl).pathname.slice(1)}_${name}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database "${database}"`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: baseUrl });
      await client.connect();
      await client.query(`drop database if exists "${database}" with (force)`);
      await client.end();
    },
  };
}

const keyOf = (i: number) => `dbk_bench_editor_${String(i).padStart(4, '0')}_0123456789abcdef`;

/** 200 users, each with a key for its editor, in the dataset format. */
function editorsDataset(): object {
  return {
    version: 1,
    users: Array.from({ length: EDITORS }, (_, i) => ({
      id: `u_editor_${i}`,
      email: `editor${i}@example.com`,
      timezone: ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'UTC'][i % 4],
    })),
    apiKeys: Array.from({ length: EDITORS }, (_, i) => ({
      userId: `u_editor_${i}`,
      name: 'editor',
      key: keyOf(i),
      scopes: ['activity:write'],
    })),
  };
}

function heartbeat(time: number, editor: number, n: number) {
  return {
    entity: `/home/dev/project-${editor % 7}/src/file-${n % 40}.ts`,
    type: 'file',
    category: n % 17 === 0 ? 'debugging' : 'coding',
    time,
    project: `project-${editor % 7}`,
    branch: n % 3 === 0 ? 'main' : 'feature/x',
    language: 'TypeScript',
    is_write: n % 5 === 0,
    lines: 200 + n,
    lineno: n,
    cursorpos: 1,
    user_agent: 'wakatime/v1.115.2 (linux-6.1.0-amd64) go1.24.4 vscode/1.101.0 vscode-wakatime/25.0.5',
  };
}

/** Server CPU time (user + system) so far, in ms: bin/daybook execs node, so the pid is the server's. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function loadScenario(): Promise<void> {
  const database = await scratchDatabase('heartbeats_load');
  const file = join(dataDir, 'heartbeat-editors.json');
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, JSON.stringify(editorsDataset()));
  const storage = openStorage(database.url);
  await migrate(storage);
  await importDataset(storage, file);
  await storage.close();
  const server = await startDaybook(database.url);
  try {
    // Each editor's clock starts 20 hours ago and moves 2 minutes per bulk (25 heartbeats 4.8 s apart).
    const start = Date.now() / 1000 - 20 * 3600;
    const clocks = Array.from({ length: EDITORS }, (_, i) => start + i * 7);
    let next = 0;
    let bulks = 0;
    const pick = (): LoadRequest => {
      const editor = next++ % EDITORS;
      const from = clocks[editor]!;
      clocks[editor] = from + 120;
      bulks++;
      return {
        method: 'POST',
        path: '/api/v1/users/current/heartbeats.bulk',
        headers: { authorization: `Basic ${Buffer.from(keyOf(editor)).toString('base64')}` },
        body: JSON.stringify(Array.from({ length: BULK }, (_, n) => heartbeat(from + n * 4.8, editor, n))),
      };
    };
    // At the compressed rate, bulks arrive as 200 independent editors' would (bench/lib/open-loop.ts).
    let before = cpuMs(server.pid);
    const steady = await openLoop(server.url, { rate: RATE, seconds: RATE_SECONDS, pick });
    let cpu = cpuMs(server.pid) - before;
    console.log(
      `heartbeats load [${dialect}] at ${RATE} bulks/s (open loop): ${steady.requests} bulks of ${BULK} in ${RATE_SECONDS} s (${(steady.requests / RATE_SECONDS).toFixed(1)} bulks/s), p50 ${steady.p50} ms, p99 ${steady.p99} ms (target ≤ 20), slowest ${steady.max} ms, server CPU ${(cpu / Math.max(1, steady.requests)).toFixed(2)} ms per bulk, ${steady.non2xx} non-2xx, ${steady.errors} errors`,
    );
    before = cpuMs(server.pid);
    const result = await load(server.url, { connections: 10, seconds: SECONDS, pick });
    cpu = cpuMs(server.pid) - before;
    console.log(
      `heartbeats load [${dialect}] saturated: ${result.requests} bulks of ${BULK} in ${SECONDS} s on 10 connections (${Math.round(result.rps)} bulks/s, ${Math.round(result.rps * BULK)} heartbeats/s), p50 ${result.p50} ms, p99 ${result.p99} ms, server CPU ${(cpu / Math.max(1, result.requests)).toFixed(2)} ms per bulk, ${result.non2xx} non-2xx, ${result.errors} errors`,
    );
    console.log(`heartbeats load [${dialect}]: ${bulks} bulks built in all`);
  } finally {
    await server.stop();
    await database.drop();
  }
}

async function recomputeScenario(): Promise<void> {
  const database = await scratchDatabase('heartbeats_day');
  let storage: Storage | null = null;
  try {
    storage = openStorage(database.url);
    await migrate(storage);
    const file = join(dataDir, 'heartbeat-one-user.json');
    writeFileSync(
      file,
      JSON.stringify({ version: 1, users: [{ id: 'u_day', email: 'day@example.com', timezone: 'Europe/Berlin' }] }),
    );
    await importDataset(storage, file);
    const user = (await findUser(storage.db, 'u_day'))!;
    const caller = { user, viewer: await loadViewer(storage.db, 'u_day') };
    const now = Date.now();
    // Yesterday in Berlin from 00:30, a heartbeat every 4 seconds for 22 hours: 20,000 heartbeats, 7 projects.
    const dayStart = Math.floor(now / 86_400_000) * 86_400_000 - 86_400_000 - 3600_000 + 1800_000;
    const context: HeartbeatContext = { machine: 'bench', userAgent: null, timeoutMinutes: 15, clock: () => now };
    for (let i = 0; i < DAY_HEARTBEATS; i += 1000) {
      const beats = Array.from({ length: 1000 }, (_, n) => {
        const k = i + n;
        return heartbeat(dayStart / 1000 + k * 3.96, Math.floor(k / 400), k);
      });
      await recordHeartbeats(storage, caller, beats, context);
    }
    const times: number[] = [];
    for (let round = 0; round < 20; round++) {
      const at = dayStart / 1000 + 3600 + round * 1.5 + 0.25;
      const started = performance.now();
      await recordHeartbeats(storage, caller, [heartbeat(at, 3, round)], context);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    console.log(
      `heartbeats recompute [${dialect}]: a day of ${DAY_HEARTBEATS} heartbeats recomputed after one more: median ${times[10]!.toFixed(1)} ms, slowest ${times[19]!.toFixed(1)} ms (target ≤ 50 ms)`,
    );
  } finally {
    await storage?.close();
    await database.drop();
  }
}

if (runs('recompute')) await recomputeScenario();
if (runs('load')) await loadScenario();
