/**
 * `npm run bench [-- scenario …]`: runs the load benchmarks against a Daybook server process on
 * the demo dataset and prints one row per scenario (see docs/performance.md). SQLite by default;
 * PostgreSQL when DAYBOOK_DATABASE_URL is a postgres:// URL. Figures, not pass/fail.
 *
 * Settings: BENCH_USERS (100), BENCH_DAYS (365), BENCH_SEED (1), BENCH_SECONDS (10 per scenario;
 * the overhead scenario runs BENCH_OVERHEAD_ROUNDS (5) rounds of SECONDS / 2 for each server).
 */
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { type DatasetFacts, benchDatabaseUrl, dataDir, datasetFacts, ensureDataset, summaryDaysOf } from './dataset.ts';
import {
  type LoadResult,
  type Row,
  load,
  mb,
  printHeader,
  printRow,
  root,
  type ServerProcess,
  startDaybook,
  startProcess,
} from './harness.ts';
import {
  activityBatch,
  type LoadRequest,
  keyHeader,
  kindOf,
  MIXED_KINDS,
  mixedRequests,
  scenarioRequests,
} from './lib/requests.ts';
import { countWritten, runPrefix, scrubWritten, writeKeys } from './lib/writes.ts';

/** A process's CPU time (user + system) so far, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Runs a load against the process `pid`, with that process's CPU ms (every thread) per request sent. */
async function loadWithCpu(pid: number, run: () => Promise<LoadResult>): Promise<[LoadResult, number]> {
  const before = cpuMs(pid);
  const result = await run();
  return [result, (cpuMs(pid) - before) / Math.max(1, result.requests)];
}

const USERS = Number(process.env.BENCH_USERS ?? 100);
const DAYS = Number(process.env.BENCH_DAYS ?? 365);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const OVERHEAD_CONNECTIONS = 50;
const OVERHEAD_ROUNDS = Number(process.env.BENCH_OVERHEAD_ROUNDS ?? 5);

const databaseUrl = process.env.DAYBOOK_DATABASE_URL ?? '';
const dialect = databaseUrl.startsWith('postgres') ? 'postgres' : 'sqlite';

interface Context {
  facts: DatasetFacts;
  databaseUrl: string;
}

type Scenario = (ctx: Context) => Promise<Row>;

function row(scenario: string, fields: Partial<Row> & Pick<Row, 'target'>): Row {
  return {
    scenario,
    database: dialect,
    requests: 0,
    rps: 0,
    p50: null,
    p99: null,
    peakRssMb: null,
    ratio: null,
    ...fields,
  };
}

async function withServer<T>(ctx: Context, fn: (server: ServerProcess) => Promise<T>): Promise<T> {
  const server = await startDaybook(ctx.databaseUrl);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

/** A scenario's row from one load run against `server`. */
function loadRow(
  name: string,
  result: LoadResult,
  server: ServerProcess,
  fields: Pick<Row, 'ratio' | 'target'> & { note?: string },
): Row {
  const statuses = Object.entries(result.failedStatuses)
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  const failures =
    result.non2xx || result.errors
      ? `${result.non2xx} non-2xx${statuses ? ` (${statuses})` : ''}, ${result.errors} errors`
      : '';
  return row(name, {
    requests: result.requests,
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    peakRssMb: mb(server.peakRss()),
    ratio: fields.ratio,
    target: fields.target,
    note: [failures, fields.note ?? ''].filter(Boolean).join('; '),
  });
}

function scenarioRequest(ctx: Context, name: string): LoadRequest {
  const request = scenarioRequests(ctx.facts)[name];
  if (!request) throw new Error(`${name}: the dataset has no team with a keyed active member`);
  return request;
}

/** Measures one steady request shape and checks every answer was 2xx. */
async function latencyScenario(
  name: string,
  ctx: Context,
  request: LoadRequest,
  ceilingMs: number,
  options: { connections?: number; rssCeilingMb?: number } = {},
): Promise<Row> {
  return withServer(ctx, async (server) => {
    const probe = await fetch(server.url + request.path, {
      method: request.method,
      headers: { 'content-type': 'application/json', ...request.headers },
      body: request.body,
    });
    if (!probe.ok) throw new Error(`${name}: probe answered ${probe.status}: ${(await probe.text()).slice(0, 300)}`);
    const rssBefore = server.rss();
    const result = await load(server.url, {
      connections: options.connections ?? 2,
      seconds: SECONDS,
      requests: [request],
    });
    const growth = mb(server.rss() - rssBefore);
    return loadRow(name, result, server, {
      ratio: result.p50 / ceilingMs,
      target: `p50 ≤ ${ceilingMs} ms${options.rssCeilingMb ? `, RSS growth ≤ ${options.rssCeilingMb} MB` : ''}`,
      note: options.rssCeilingMb ? `RSS growth ${growth} MB` : '',
    });
  });
}

const scenarios: Record<string, Scenario> = {
  async overhead(ctx) {
    // Issue 18: 50 connections, rounds alternating bare Fastify and Daybook, the ratio a median
    // of the rounds' ratios (each round's pair measured in the same moment of the machine).
    const key = ctx.facts.keys[ctx.facts.heavyUser]!;
    const bare = await startProcess('bench/bare-server.ts', [], {});
    const daybook = await startDaybook(ctx.databaseUrl);
    const bareRequest: LoadRequest = { path: '/user' };
    const daybookRequest: LoadRequest = { path: '/user', headers: keyHeader(key) };
    const rounds = { bare: [] as number[], daybook: [] as number[], ratio: [] as number[], cpu: [] as number[] };
    let last = { requests: 0, p50: 0, p99: 0, non2xx: 0 };
    try {
      // Warm both up (JIT, key cache) before the measured rounds.
      await load(bare.url, { connections: OVERHEAD_CONNECTIONS, seconds: 1, requests: [bareRequest] });
      await load(daybook.url, { connections: OVERHEAD_CONNECTIONS, seconds: 1, requests: [daybookRequest] });
      for (let round = 0; round < OVERHEAD_ROUNDS; round++) {
        const options = { connections: OVERHEAD_CONNECTIONS, seconds: SECONDS / 2 };
        // Each server's own CPU time per request as well: what it costs, whatever else the
        // machine is doing (throughput alone moves with every other process on the two cores).
        const [b, bareCpu] = await loadWithCpu(bare.pid, () => load(bare.url, { ...options, requests: [bareRequest] }));
        const [d, daybookCpu] = await loadWithCpu(daybook.pid, () =>
          load(daybook.url, { ...options, requests: [daybookRequest] }),
        );
        rounds.bare.push(b.rps);
        rounds.daybook.push(d.rps);
        rounds.ratio.push(d.rps / b.rps);
        rounds.cpu.push(bareCpu / daybookCpu);
        console.log(
          `overhead round ${round + 1}/${OVERHEAD_ROUNDS}: Daybook ${Math.round(d.rps)} req/s, bare ${Math.round(b.rps)} req/s, ratio ${(d.rps / b.rps).toFixed(3)}; server CPU per request ${(daybookCpu * 1000).toFixed(1)} µs vs bare ${(bareCpu * 1000).toFixed(1)} µs, ratio ${(bareCpu / daybookCpu).toFixed(3)}`,
        );
        last = { requests: last.requests + d.requests, p50: d.p50, p99: d.p99, non2xx: last.non2xx + d.non2xx };
      }
    } finally {
      await bare.stop();
    }
    const peak = mb(daybook.peakRss());
    await daybook.stop();
    const median = (xs: number[]) => {
      const sorted = [...xs].sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    };
    return row('overhead', {
      requests: last.requests,
      rps: median(rounds.daybook),
      p50: last.p50,
      p99: last.p99,
      peakRssMb: peak,
      ratio: median(rounds.ratio),
      target: '≥ 0.80 × bare Fastify',
      note: [
        `bare ${Math.round(median(rounds.bare))} req/s`,
        `${OVERHEAD_CONNECTIONS} connections`,
        `rounds ${rounds.ratio.map((r) => r.toFixed(2)).join(' ')}`,
        `CPU-per-request ratio ${median(rounds.cpu).toFixed(2)} (rounds ${rounds.cpu.map((r) => r.toFixed(2)).join(' ')})`,
        last.non2xx ? `${last.non2xx} non-2xx` : '',
      ]
        .filter(Boolean)
        .join('; '),
    });
  },

  'report-day-year': (ctx) => latencyScenario('report-day-year', ctx, scenarioRequest(ctx, 'report-day-year'), 15),

  'report-activity-90d': (ctx) =>
    latencyScenario('report-activity-90d', ctx, scenarioRequest(ctx, 'report-activity-90d'), 100, { rssCeilingMb: 50 }),

  'report-team': (ctx) => latencyScenario('report-team', ctx, scenarioRequest(ctx, 'report-team'), 50),

  search: (ctx) =>
    withServer(ctx, async (server) => {
      const key = ctx.facts.keys[ctx.facts.heavyUser]!;
      const words = ctx.facts.words;
      let n = 0;
      const pick = (): LoadRequest => {
        n++;
        const count = 1 + (n % 3);
        const query = Array.from({ length: count }, (_, i) => words[(n * 7 + i * 13) % words.length]).join(' ');
        return { method: 'POST', path: '/search', headers: keyHeader(key), body: JSON.stringify({ query, days: 30 }) };
      };
      const result = await load(server.url, { connections: 2, seconds: SECONDS, pick });
      return loadRow('search', result, server, { ratio: result.p50 / 10, target: 'p50 ≤ 10 ms' });
    }),

  async import(ctx) {
    const target = dialect === 'postgres' ? await createScratchPostgres(databaseUrl) : null;
    const file = join(dataDir, 'import-scratch.db');
    rmSync(file, { force: true });
    rmSync(`${file}-wal`, { force: true });
    const url = target?.url ?? `sqlite:${file}`;
    try {
      const { seconds, peakRss } = await measureImport(ctx.facts.file, url);
      const perSecond = ctx.facts.activities / seconds;
      const floor = dialect === 'postgres' ? 30_000 : 100_000;
      return row('import', {
        requests: ctx.facts.activities,
        rps: perSecond,
        peakRssMb: mb(peakRss),
        ratio: perSecond / floor,
        target: `≥ ${floor / 1000}k activities/s, RSS ≤ 300 MB`,
        note: `${seconds.toFixed(1)} s for ${ctx.facts.activities} activities`,
      });
    } finally {
      rmSync(file, { force: true });
      rmSync(`${file}-wal`, { force: true });
      rmSync(`${file}-shm`, { force: true });
      await target?.drop();
    }
  },

  async write(ctx) {
    const user = ctx.facts.heavyUser;
    const floor = dialect === 'postgres' ? 15_000 : 30_000;
    return onScratchCopy(ctx, (on, scrub) =>
      withWrites(
        on,
        [user],
        async (writes) => {
          const measured = await withServer(on, async (server) => {
            let n = 0;
            const batch = () => activityBatch(ctx.facts, writes, user, n++, 1000);
            const probe = batch();
            const answer = await fetch(server.url + probe.path, {
              method: 'POST',
              headers: { 'content-type': 'application/json', ...probe.headers },
              body: probe.body,
            });
            if (!answer.ok)
              throw new Error(`write: probe answered ${answer.status}: ${(await answer.text()).slice(0, 300)}`);
            const [result, cpu] = await loadWithCpu(server.pid, () =>
              load(server.url, { connections: 10, seconds: SECONDS, pick: batch }),
            );
            const perSecond = (result.ok * 1000) / result.seconds;
            const row = loadRow('write', result, server, {
              ratio: perSecond / floor,
              target: `≥ ${floor / 1000}k activities/s, p99 ≤ 250 ms`,
              note: `${Math.round(result.rps * 10) / 10} batches/s of 1000; p99 ${result.p99 <= 250 ? '≤' : '>'} 250 ms; server CPU ${cpu.toFixed(1)} ms per batch (all threads)`,
            });
            return { row: { ...row, requests: result.ok * 1000, rps: perSecond }, ok: result.ok };
          });
          // Counted once the server has stopped, batches cut off at the end included. Every
          // batch new: at least the probe's and each 2xx batch's 1,000 activities were inserted.
          const stored = (await countWritten(on.databaseUrl, writes.prefix)).activities;
          const inserted = (measured.ok + 1) * 1000;
          const note = [
            measured.row.note,
            `${stored} activities stored${stored >= inserted ? '' : ` (fewer than the ${inserted} answered: not all new)`}`,
            scrub ? 'deleted afterwards' : 'on a copy of the database',
          ];
          return { ...measured.row, note: note.filter(Boolean).join('; ') };
        },
        { scrub },
      ),
    );
  },

  /**
   * Reads while 1,000-item batches are written (issue 19's write path): 2 connections send
   * batches as fast as they are answered, and 10 others 7-day day reports at a steady 200 req/s;
   * the row is the reads' latency, the note the writes'. Compare with DAYBOOK_WRITE_THREAD=false.
   */
  async 'reads-during-writes'(ctx) {
    const user = ctx.facts.heavyUser;
    return onScratchCopy(ctx, (on, scrub) =>
      withWrites(
        on,
        [user],
        (writes) =>
          withServer(on, async (server) => {
            let n = 0;
            let m = 0;
            const reads = mixedRequests(ctx.facts, new Map(), writes, 'report-day-7d');
            const [written, read] = await Promise.all([
              load(server.url, {
                connections: 2,
                seconds: SECONDS,
                pick: () => activityBatch(ctx.facts, writes, user, n++, 1000),
              }),
              load(server.url, { connections: 10, seconds: SECONDS, rate: 200, pick: () => reads(m++) }),
            ]);
            return loadRow('reads-during-writes', read, server, {
              ratio: read.p99 / 50,
              target: 'reads p99 ≤ 50 ms (no target set)',
              note: `writes: ${((written.ok * 1000) / written.seconds).toFixed(0)} activities/s, batch p50 ${written.p50} ms, p99 ${written.p99} ms${written.non2xx || written.errors ? `, ${written.non2xx} non-2xx, ${written.errors} errors` : ''}`,
            });
          }),
        { scrub },
      ),
    );
  },

  mixed: (ctx) =>
    withWrites(ctx, ctx.facts.paidUsers, (writes) =>
      withServer(ctx, async (server) => {
        const next = mixedRequests(ctx.facts, await summaryDaysOf(ctx.databaseUrl, ctx.facts.paidUsers), writes);
        let n = 0;
        const pick = () => {
          n += 1;
          return { ...next(n), kind: kindOf(n) };
        };
        const [result, cpu] = await loadWithCpu(server.pid, () =>
          load(server.url, { connections: 50, seconds: SECONDS, pick }),
        );
        const stored = await countWritten(ctx.databaseUrl, writes.prefix);
        const kinds = MIXED_KINDS.flatMap((kind) => {
          const k = result.byKind[kind];
          return k ? [`${kind} ${k.p50}/${k.p99}`] : [];
        });
        return loadRow('mixed', result, server, {
          ratio: result.rps / 3000,
          target: '≥ 3000 req/s, p99 ≤ 50 ms',
          note: `server CPU ${cpu.toFixed(2)} ms per request (all threads); 10 % writes: ${stored.activities} activities and ${stored.tasks} tasks stored; p50/p99 ms by kind: ${kinds.join(', ')}`,
        });
      }),
    ),

  /**
   * The mixed load with its writes for BENCH_SOAK_SECONDS (600), the server's RSS sampled every
   * 10 s: memory that keeps growing under a steady load shows as a rising series. Run it by name
   * (`npm run bench -- soak`); it is not part of a run of every scenario.
   */
  soak: (ctx) =>
    withWrites(ctx, ctx.facts.paidUsers, (writes) =>
      withServer(ctx, async (server) => {
        const next = mixedRequests(ctx.facts, await summaryDaysOf(ctx.databaseUrl, ctx.facts.paidUsers), writes);
        let n = 0;
        const samples: number[] = [mb(server.rss())];
        const sampler = setInterval(() => {
          samples.push(mb(server.rss()));
          console.log(`soak: ${samples.length * 10 - 10} s, RSS ${samples.at(-1)} MB`);
        }, 10_000);
        let result: LoadResult;
        try {
          result = await load(server.url, { connections: 10, seconds: SOAK_SECONDS, pick: () => next(++n) });
        } finally {
          clearInterval(sampler);
        }
        samples.push(mb(server.rss()));
        // Growth: the last minute's mean over the second minute's, past start-up and warm-up.
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
        const early = mean(samples.slice(6, 12));
        const late = mean(samples.slice(-6));
        return loadRow('soak', result, server, {
          ratio: null,
          target: 'no errors, RSS flat after warm-up',
          note: `RSS MB every 10 s: ${samples.join(' ')}; last minute ${late.toFixed(0)} vs second minute ${early.toFixed(0)} MB (${late - early >= 0 ? '+' : ''}${(late - early).toFixed(0)})`,
        });
      }),
    ),
};

/** Scenarios a run of every scenario leaves out: long ones, run by name. */
const BY_NAME_ONLY = new Set(['soak']);

/**
 * Runs a scenario that writes with keys that may write for `users` and this run's id prefix,
 * then (unless it wrote to a copy: `scrub: false`) deletes what it wrote and builds the
 * summaries its writes and deletes made due, so the database is as before for the scenarios and
 * runs that follow; any key made for it is removed.
 */
async function withWrites<T>(
  ctx: Context,
  users: readonly string[],
  fn: (writes: { prefix: string; keys: Record<string, string> }) => Promise<T>,
  options: { scrub: boolean } = { scrub: true },
): Promise<T> {
  const access = await writeKeys(ctx.databaseUrl, ctx.facts, users);
  if (access.made) console.error(`bench: made ${access.made} key(s) with activity:write for this scenario`);
  const prefix = runPrefix();
  try {
    return await fn({ prefix, keys: access.keys });
  } finally {
    if (options.scrub) {
      const started = Date.now();
      const deleted = await scrubWritten(ctx.databaseUrl, prefix);
      await generateSummaries(ctx.databaseUrl);
      console.error(
        `bench: deleted the ${deleted} records written, in ${((Date.now() - started) / 1000).toFixed(1)} s`,
      );
    }
    await access.drop();
  }
}

/**
 * Runs a scenario that writes many records: on SQLite on a copy of the file, removed afterwards;
 * on PostgreSQL on the benchmark database, whose writes the scenario must delete (`scrub`).
 */
async function onScratchCopy<T>(ctx: Context, fn: (on: Context, scrub: boolean) => Promise<T>): Promise<T> {
  const scratch = dialect === 'sqlite' ? copySqlite(ctx.databaseUrl) : null;
  try {
    return await fn({ ...ctx, databaseUrl: scratch?.url ?? ctx.databaseUrl }, !scratch);
  } finally {
    scratch?.remove();
  }
}

/** A copy of the SQLite benchmark database beside it, for a scenario whose writes are not kept. */
function copySqlite(url: string): { url: string; remove(): void } {
  const file = url.slice('sqlite:'.length);
  const copy = join(dataDir, 'write-scratch.db');
  const remove = () => {
    for (const suffix of ['', '-wal', '-shm']) rmSync(copy + suffix, { force: true });
  };
  remove();
  for (const suffix of ['', '-wal']) if (existsSync(file + suffix)) copyFileSync(file + suffix, copy + suffix);
  return { url: `sqlite:${copy}`, remove };
}

async function createScratchPostgres(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `daybook_bench_import_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const scratch = new URL(url);
  scratch.pathname = `/${name}`;
  return {
    url: scratch.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/**
 * Runs `daybook <args>` on `url` in its own process; `sample` sees its pid every 100 ms while it
 * runs.
 */
function daybook(args: string[], url: string, sample?: (pid: number) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const child = spawn('bash', ['bin/daybook', ...args], {
      cwd: root,
      env: { ...process.env, DAYBOOK_DATABASE_URL: url },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const timer = sample ? setInterval(() => sample(child.pid!), 100) : undefined;
    child.once('exit', (code) => {
      clearInterval(timer);
      code === 0 ? resolve() : reject(new Error(`daybook ${args[0]} exited ${code}`));
    });
  });
}

/** Imports `file` in its own process (after migrating) and samples its peak RSS. */
async function measureImport(file: string, url: string): Promise<{ seconds: number; peakRss: number }> {
  await daybook(['migrate'], url);
  const started = Date.now();
  let peakRss = 0;
  await daybook(['import', file], url, (pid) => {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      peakRss = Math.max(peakRss, Number(status.match(/VmHWM:\s+(\d+) kB/)?.[1] ?? 0) * 1024);
    } catch {
      // the process has exited
    }
  });
  return { seconds: (Date.now() - started) / 1000, peakRss };
}

/** The database the request scenarios run against, imported once and reused. */
async function ensureBenchDatabase(facts: DatasetFacts): Promise<string> {
  if (dialect === 'postgres') {
    await scrubLeftovers(databaseUrl);
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    const count = await client
      .query('select count(*)::int as n from activities')
      .then((r) => r.rows[0].n as number)
      .catch(() => 0);
    await client.end();
    if (count !== facts.activities) {
      console.error(`bench: importing ${facts.file} into ${new URL(databaseUrl).pathname.slice(1)}`);
      await measureImport(facts.file, databaseUrl);
    }
    await generateSummaries(databaseUrl);
    return databaseUrl;
  }
  const file = benchDatabaseUrl(USERS, DAYS, SEED).slice('sqlite:'.length);
  const marker = `${file}.imported`;
  if (!existsSync(marker)) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    console.error(`bench: importing ${facts.file} into ${file}`);
    await measureImport(facts.file, `sqlite:${file}`);
    writeFileSync(marker, new Date().toISOString());
  }
  await scrubLeftovers(`sqlite:${file}`);
  await generateSummaries(`sqlite:${file}`);
  return `sqlite:${file}`;
}

/** Records an interrupted run of `write` or `mixed` left behind (none after a complete run). */
async function scrubLeftovers(url: string): Promise<void> {
  const deleted = await scrubWritten(url).catch(() => 0);
  if (deleted) console.error(`bench: deleted ${deleted} records an earlier run wrote`);
}

/** /message answers from stored summaries: build what is due (a no-op once built). */
async function generateSummaries(url: string): Promise<void> {
  console.error('bench: building due summaries');
  await daybook(['summaries', 'generate'], url);
}

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const unknown = wanted.filter((w) => !scenarios[w]);
if (unknown.length) {
  console.error(`unknown scenario(s): ${unknown.join(', ')}; known: ${Object.keys(scenarios).join(', ')}`);
  process.exit(2);
}
const names = wanted.length ? wanted : Object.keys(scenarios).filter((name) => !BY_NAME_ONLY.has(name));

const datasetFile = await ensureDataset(USERS, DAYS, SEED);
const facts = await datasetFacts(datasetFile);
const ctx: Context = { facts, databaseUrl: names.every((n) => n === 'import') ? '' : await ensureBenchDatabase(facts) };

/**
 * This machine's speed at the moment: a bare Fastify server's `GET /user` throughput under the
 * same load generator. Shared machines change speed by half or more within an hour; runs are
 * comparable only next to this figure.
 */
async function calibrate(): Promise<number> {
  const bare = await startProcess('bench/bare-server.ts', [], {});
  try {
    return (await load(bare.url, { connections: 10, seconds: 3, requests: [{ path: '/user' }] })).rps;
  } finally {
    await bare.stop();
  }
}

const bareRps = await calibrate();
console.log(`machine: bare Fastify ${Math.round(bareRps)} req/s (GET /user, 10 connections, 3 s)`);
printHeader();
const rows: Row[] = [];
for (const name of names) {
  try {
    const result = await scenarios[name]!(ctx);
    rows.push(result);
    printRow(result);
  } catch (err) {
    const failed = row(name, { target: '-', note: `failed: ${(err as Error).message.split('\n')[0]}` });
    rows.push(failed);
    printRow(failed);
  }
}

const resultsDir = join(root, 'bench/results');
mkdirSync(resultsDir, { recursive: true });
const out = join(resultsDir, `${new Date().toISOString().replace(/[:.]/g, '-')}-${dialect}.json`);
writeFileSync(
  out,
  `${JSON.stringify({ dialect, users: USERS, days: DAYS, seed: SEED, seconds: SECONDS, bareFastifyRps: bareRps, rows }, null, 2)}\n`,
);
console.error(`bench: results written to ${out}`);
