/**
 * docs/deploy/nginx.conf with the machine's nginx in front of two `bin/daybook serve` processes
 * on one PostgreSQL database and one Redis, with DAYBOOK_TRUST_PROXY=true: only the listen
 * address, the two upstream ports and the log paths are changed from the shipped file. Through
 * nginx: a key works, both processes answer, failed keys are counted per client address (not
 * nginx's own) across both processes and a client cannot pick its address with X-Forwarded-For,
 * and a body over 1 MiB is refused by nginx while one of 1 MiB reaches Daybook. Skipped where nginx
 * is not installed (Debian: apt-get install nginx).
 *
 * DAYBOOK_NGINX_LOAD_SECONDS=N adds a load run of N seconds through nginx and straight to one
 * process, and prints the figures (docs/performance.md, "Behind nginx").
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { type IncomingHttpHeaders, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { load } from '../../bench/harness.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { DEFAULT_NOW, EXAMPLE, KEYS, REDIS_URL, type TestDatabase, createTestDatabase } from '../helper.ts';
import { freePort, killHard, serve } from '../reliability/processes.ts';

const root = join(fileURLToPath(import.meta.url), '..', '..', '..');
const AUTH_FAILURES_PER_MINUTE = 3;

function findNginx(): string | null {
  for (const candidate of ['nginx', '/usr/sbin/nginx', '/usr/local/sbin/nginx']) {
    try {
      execFileSync(candidate, ['-v'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // not this one
    }
  }
  return null;
}

const nginxBinary = findNginx();
const skip = nginxBinary ? false : 'nginx is not installed';

/** A loopback address of its own for a client, so that its failed keys are counted apart. */
const clientAddress = () => `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(1, 255)}`;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

let port = 0;

function send(
  path: string,
  options: { from: string; method?: string; headers?: Record<string, string>; body?: string | Buffer },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        localAddress: options.from,
        agent: false,
      },
      (res) => {
        answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
        );
      },
    );
    // nginx may answer 413 and close before a refused body is all written: the answer counts.
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    req.end(options.body);
  });
}

let database: TestDatabase;
let dir: string;
let nginx: ChildProcess | undefined;
const backends: { child: ChildProcess; url: string; port: number }[] = [];

async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = once(child, 'exit');
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const [code] = (await exited) as [number | null];
  clearTimeout(timer);
  return code;
}

/** The surroundings Debian's /etc/nginx/nginx.conf gives a site, with paths of this test's own. */
function mainConfig(site: string): string {
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']
    .map((kind) => `    ${kind}_temp_path ${dir}/${kind};`)
    .join('\n');
  return [
    // As root, workers would otherwise run as nobody, who cannot enter this test's directory.
    process.getuid?.() === 0 ? 'user root;' : '',
    'daemon off;',
    'worker_processes 2;',
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/error.log warn;`,
    'events { worker_connections 1024; }',
    'http {',
    '    default_type application/octet-stream;',
    `    access_log ${dir}/access.log;`,
    temp,
    `    include ${site};`,
    '}',
    '',
  ].join('\n');
}

before(async () => {
  if (skip) return;
  dir = await mkdtemp(join(tmpdir(), 'daybook-nginx-'));
  database = await createTestDatabase('postgres');
  await importDataset(database.storage, EXAMPLE, { now: () => DEFAULT_NOW });
  const env = {
    // A Redis database of its own: the key prefix is fixed, and other tests' failed keys from
    // 127.0.0.1 (the load run's address) must not count here.
    DAYBOOK_REDIS_URL: `${REDIS_URL}/${randomInt(1, 16)}`,
    DAYBOOK_TRUST_PROXY: 'true',
    DAYBOOK_AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURES_PER_MINUTE),
  };
  backends.push(...(await Promise.all([serve(database.url, env), serve(database.url, env)])));

  port = await freePort();
  const shipped = await readFile(join(root, 'docs/deploy/nginx.conf'), 'utf8');
  const site = shipped
    .replace(/^ {4}listen 80;$/m, `    listen 127.0.0.1:${port};`)
    .replace('server 127.0.0.1:8081;', `server 127.0.0.1:${backends[0]!.port};`)
    .replace('server 127.0.0.1:8082;', `server 127.0.0.1:${backends[1]!.port};`)
    .replaceAll('/var/log/nginx/', `${dir}/`);
  assert.notEqual(site, shipped);
  for (const changed of [`listen 127.0.0.1:${port};`, `:${backends[0]!.port};`, `:${backends[1]!.port};`])
    assert.ok(site.includes(changed), `templated ${changed}`);
  await writeFile(join(dir, 'daybook.conf'), site);
  await writeFile(join(dir, 'nginx.conf'), mainConfig(join(dir, 'daybook.conf')));
  nginx = spawn(nginxBinary!, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  nginx.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  for (let i = 0; ; i++) {
    if (nginx.exitCode !== null) throw new Error(`nginx exited with ${nginx.exitCode}: ${stderr}`);
    try {
      if ((await send('/healthz', { from: '127.0.0.1' })).status === 200) break;
    } catch {
      // not listening yet
    }
    if (i > 100) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
});

after(async () => {
  if (skip) return;
  if (nginx) await stop(nginx, 'SIGQUIT');
  // SIGTERM: each process answers what it holds and exits 0.
  const codes = await Promise.all(backends.map((b) => stop(b.child, 'SIGTERM')));
  await Promise.all(backends.map((b) => killHard(b.child)));
  await database?.drop();
  await rm(dir, { recursive: true, force: true });
  assert.deepEqual(codes, [0, 0]);
});

/**
 * The access log's lines for a client once there are `count` of them: nginx writes a line after
 * the answer has gone, so it may lag the client by a moment.
 */
async function logLines(from: string, count: number): Promise<string[]> {
  for (let i = 0; ; i++) {
    const lines = (await readFile(join(dir, 'daybook.access.log'), 'utf8'))
      .split('\n')
      .filter((line) => line.startsWith(`${from} `));
    if (lines.length >= count || i === 50) return lines;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('through nginx a key works, and both processes answer', { skip }, async () => {
  const from = clientAddress();
  for (let i = 0; i < 6; i++) {
    const answer = await send('/user', { from, headers: { 'x-api-key': KEYS.aliceAll } });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(JSON.parse(answer.text).success, true);
  }
  const lines = await logLines(from, 6);
  assert.equal(lines.length, 6);
  const upstreams = new Set(lines.map((line) => /upstream=(\S+)/.exec(line)?.[1]));
  assert.deepEqual(
    [...upstreams].sort(),
    backends.map((b) => `127.0.0.1:${b.port}`).sort(),
    'nginx spread the requests over both processes',
  );
});

test('failed keys are counted per client address, across both processes, whatever X-Forwarded-For the client sends', {
  skip,
}, async () => {
  const mallory = clientAddress();
  const bad = { 'x-api-key': 'dbk_not_a_key_0123456789abcdef0123' };
  for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++) {
    const answer = await send('/user', { from: mallory, headers: bad });
    assert.equal(answer.status, 401, answer.text);
  }
  // The next failure is refused, by whichever process gets it: the counts are in Redis.
  for (let i = 0; i < 2; i++) assert.equal((await send('/user', { from: mallory, headers: bad })).status, 429);
  // A made-up X-Forwarded-For is replaced by nginx, so it is no way out.
  const spoofed = await send('/user', { from: mallory, headers: { ...bad, 'x-forwarded-for': clientAddress() } });
  assert.equal(spoofed.status, 429);
  // Another client, behind the same nginx (the same address as seen by Daybook's socket), is not held up.
  const other = clientAddress();
  assert.equal((await send('/user', { from: other, headers: bad })).status, 401);
  assert.equal((await send('/user', { from: other, headers: { 'x-api-key': KEYS.aliceAll } })).status, 200);
  const upstreams = new Set(
    (await logLines(mallory, AUTH_FAILURES_PER_MINUTE + 3)).map((line) => /upstream=(\S+)/.exec(line)?.[1]),
  );
  assert.equal(upstreams.size, 2, 'both processes saw the failing client');
});

test('a body over 1 MiB is refused by nginx; one of 1 MiB reaches Daybook', { skip }, async () => {
  const from = clientAddress();
  const headers = { 'x-api-key': KEYS.aliceAll, 'content-type': 'application/json' };
  const json = (size: number) => {
    const frame = '{"activities":[],"padding":""}';
    return Buffer.from(`{"activities":[],"padding":"${'x'.repeat(size - frame.length)}"}`);
  };
  const over = await send('/activities', { from, method: 'POST', headers, body: json(1024 * 1024 + 1) });
  assert.equal(over.status, 413);
  const limit = await send('/activities', { from, method: 'POST', headers, body: json(1024 * 1024) });
  assert.notEqual(limit.status, 413, limit.text);
  assert.match(String(limit.headers['content-type']), /application\/json/);
  const lines = await logLines(from, 2);
  assert.match(lines[0]!, / 413 .*upstream=- /, 'the larger body never reached Daybook');
  assert.match(lines[1]!, /upstream=127\.0\.0\.1:\d+ /);
});

const loadSeconds = Number(process.env.DAYBOOK_NGINX_LOAD_SECONDS ?? 0);
test('load through nginx', {
  skip: skip || (loadSeconds > 0 ? false : 'DAYBOOK_NGINX_LOAD_SECONDS is not set'),
}, async () => {
  const requests = [{ path: '/user', headers: { 'x-api-key': KEYS.aliceAll } }];
  const rows: string[] = [];
  for (const [name, url] of [
    ['nginx, 2 processes', `http://127.0.0.1:${port}`],
    ['1 process, direct', backends[0]!.url],
  ] as const) {
    const result = await load(url, { connections: 50, seconds: loadSeconds, requests });
    assert.equal(result.errors, 0);
    assert.equal(result.non2xx, 0);
    rows.push(
      `${name}: ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ${result.requests} requests`,
    );
  }
  console.log(
    `GET /user, 50 connections, ${loadSeconds} s (load average ${(await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ')}):`,
  );
  for (const row of rows) console.log(`  ${row}`);
});

test("compose.yaml's nginx configuration passes nginx -t", { skip }, async () => {
  const compose = await readFile(join(root, 'docs/deploy/compose.yaml'), 'utf8');
  const block = /^ {4}content: \|\n((?: {6}.*\n|\n)+)/m.exec(compose);
  assert.ok(block, 'compose.yaml has the nginx configuration inline');
  // Compose writes $ as $$; the service name resolves only on the compose network.
  const site = block[1]!
    .split('\n')
    .map((line) => line.slice(6))
    .join('\n')
    .replaceAll('$$', '$')
    .replace('server daybook:8080;', 'server 127.0.0.1:8080;');
  assert.match(site, /proxy_set_header X-Forwarded-For \$remote_addr;/);
  assert.match(site, /client_max_body_size 1m;/);
  await writeFile(join(dir, 'compose-site.conf'), site);
  await writeFile(join(dir, 'compose-nginx.conf'), mainConfig(join(dir, 'compose-site.conf')));
  const checked = spawn(
    nginxBinary!,
    ['-t', '-p', dir, '-c', join(dir, 'compose-nginx.conf'), '-e', join(dir, 'error.log')],
    {
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  checked.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(checked, 'exit');
  assert.equal(code, 0, stderr);
});
