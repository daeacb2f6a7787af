/**
 * What every benchmark scenario needs: a Daybook server in its own process (so its memory can
 * be read from /proc), an autocannon load against it, and one printed row of figures.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { LoadRequest } from './lib/requests.ts';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  url: string;
  pid: number;
  /** Resident set size now, in bytes. */
  rss(): number;
  /** Peak resident set size since start, in bytes. */
  peakRss(): number;
  stop(): Promise<void>;
}

function procStatus(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = status.match(new RegExp(`${field}:\\s+(\\d+) kB`));
  return match ? Number(match[1]) * 1024 : 0;
}

async function waitUntilUp(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${output()}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not start in time:\n${output()}`);
}

/** Starts `node <script> [args]` with PORT set, and waits for /healthz. */
export async function startProcess(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<ServerProcess> {
  const port = await freePort();
  let output = '';
  // A TypeScript file runs on the project's Node; anything else is a bash script (bin/daybook).
  const command = script.endsWith('.ts')
    ? [join(root, 'scripts/node.sh'), script, ...args]
    : [join(root, script), ...args];
  const child = spawn('bash', command, {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => {
    output = (output + d).slice(-4000);
  });
  child.stderr?.on('data', (d) => {
    output = (output + d).slice(-4000);
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntilUp(url, child, () => output);
  const pid = child.pid!;
  return {
    url,
    pid,
    rss: () => procStatus(pid, 'VmRSS'),
    peakRss: () => procStatus(pid, 'VmHWM'),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A Daybook server on `databaseUrl` with rate limits and background work out of the way. */
/**
 * `daybook serve` on `databaseUrl`. BENCH_PROFILE_DIR: write a CPU profile of the server (node
 * --cpu-prof) to that folder; BENCH_SERVER_NODE_OPTIONS: more Node options for the server only.
 */
export function startDaybook(databaseUrl: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const profile = process.env.BENCH_PROFILE_DIR;
  const nodeOptions = [
    profile ? `--cpu-prof --cpu-prof-dir=${profile}` : '',
    process.env.BENCH_SERVER_NODE_OPTIONS ?? '',
  ]
    .filter(Boolean)
    .join(' ');
  // Through bin/daybook, with the Node flags users get.
  return startProcess('bin/daybook', ['serve'], {
    ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
    DAYBOOK_DATABASE_URL: databaseUrl,
    DAYBOOK_RATE_LIMIT_PER_MINUTE: '1000000000',
    DAYBOOK_AUTH_FAILURES_PER_MINUTE: '1000000000',
    DAYBOOK_SUMMARY_INTERVAL_SECONDS: '0',
    DAYBOOK_DEMO: 'off',
    ...env,
  });
}

export interface LoadResult {
  requests: number;
  /** Answers with a 2xx status. */
  ok: number;
  /** How long the load ran, in seconds. */
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** How many answers had each status that is not 2xx, by status. */
  failedStatuses: Record<string, number>;
  /** Latency in ms by kind, for requests that name theirs (LoadRequest.kind). */
  byKind: Record<string, { count: number; p50: number; p99: number }>;
}

/** What a connection remembers of the request it sent last (autocannon's per-client context). */
interface KindContext {
  kind?: string;
  sentAt?: number;
}

/**
 * Sends `requests` round-robin over `connections` for `seconds`. `pick` may choose each
 * request (e.g. a different key or query per request).
 */
export async function load(
  url: string,
  options: {
    connections: number;
    seconds: number;
    requests?: LoadRequest[];
    pick?: () => LoadRequest;
    /** Requests per second offered in all (autocannon's overallRate); as fast as answered when absent. */
    rate?: number;
  },
): Promise<LoadResult> {
  const toRequest = (r: LoadRequest) => ({
    method: r.method ?? 'GET',
    path: r.path,
    headers: { 'content-type': 'application/json', ...r.headers },
    ...(r.body === undefined ? {} : { body: r.body }),
  });
  // Requests that name their kind are timed by kind, from when autocannon sets each up on its
  // connection (just before it is written) to its answer.
  const byKind = new Map<string, number[]>();
  const requests = options.pick
    ? [
        {
          setupRequest: (req: object, context: KindContext) => {
            const request = options.pick!();
            context.kind = request.kind;
            context.sentAt = performance.now();
            return { ...req, ...toRequest(request) };
          },
          onResponse: (_status: number, _body: string, context: KindContext) => {
            if (context.kind === undefined) return;
            const times = byKind.get(context.kind) ?? [];
            if (times.length === 0) byKind.set(context.kind, times);
            times.push(performance.now() - context.sentAt!);
          },
        },
      ]
    : (options.requests ?? [{ path: '/' }]).map(toRequest);
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    ...(options.rate ? { overallRate: options.rate } : {}),
    // biome-ignore lint/suspicious/noExplicitAny: autocannon's request type is loose
    requests: requests as any,
  });
  return {
    requests: result.requests.total,
    ok: result['2xx'],
    seconds: result.duration,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    byKind: Object.fromEntries(
      [...byKind].map(([kind, times]) => {
        times.sort((a, b) => a - b);
        const at = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(q * times.length))]!);
        return [kind, { count: times.length, p50: at(0.5), p99: at(0.99) }];
      }),
    ),
    failedStatuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {})
        .filter(([status]) => !status.startsWith('2'))
        .map(([status, { count }]) => [status, count ?? 0]),
    ),
  };
}

export interface Row {
  scenario: string;
  database: string;
  requests: number;
  rps: number;
  p50: number | null;
  p99: number | null;
  peakRssMb: number | null;
  /** Measured ÷ target, oriented so that ≤ 1 meets a latency ceiling and ≥ 1 meets a floor. */
  ratio: number | null;
  target: string;
  note?: string;
}

const columns: [keyof Row, string, number][] = [
  ['scenario', 'scenario', 20],
  ['database', 'db', 8],
  ['requests', 'requests', 10],
  ['rps', 'req/s', 9],
  ['p50', 'p50 ms', 8],
  ['p99', 'p99 ms', 8],
  ['peakRssMb', 'peak RSS MB', 12],
  ['ratio', 'ratio', 7],
  ['target', 'target', 28],
];

export function printHeader(): void {
  console.log(columns.map(([, title, w]) => title.padEnd(w)).join(' '));
  console.log(columns.map(([, , w]) => '-'.repeat(w)).join(' '));
}

export function printRow(row: Row): void {
  const cell = (v: unknown) =>
    v === null || v === undefined ? '-' : typeof v === 'number' ? String(Math.round(v * 100) / 100) : String(v);
  console.log(columns.map(([key, , w]) => cell(row[key]).padEnd(w)).join(' ') + (row.note ? `  ${row.note}` : ''));
}

export const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;
