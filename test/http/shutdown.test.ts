/**
 * Graceful shutdown: a request already in flight when the server is told to stop is answered,
 * and no new connection is accepted. A request is kept in flight by sending its body slowly
 * over a raw socket: the server cannot answer before the body is complete.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { startServer } from '../../src/server.ts';
import { migrate, openStorage } from '../../src/storage/database.ts';
import { EXAMPLE, KEYS } from '../helper.ts';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BODY = '{"name":"slowly sent"}';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The port a spawned `daybook serve` says it listens on, once it says so (0 if it has not within
 * a minute). Starting takes about 5 s on an idle machine here and three times that while the
 * other test shards load it: the wait is not what these tests measure.
 */
async function listeningPort(output: () => string): Promise<number> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const port = Number(/Daybook listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output())?.[1] ?? 0);
    if (port || Date.now() > deadline) return port;
    await sleep(50);
  }
}

let dir: string;
let databaseUrl: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'daybook-shutdown-'));
  databaseUrl = `sqlite:${join(dir, 'daybook.db')}`;
  // A database with users, so the server starts without seeding a first-run demo.
  const storage = openStorage(databaseUrl);
  await migrate(storage);
  await importDataset(storage, EXAMPLE);
  await storage.close();
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** A POST whose headers and first body bytes are sent now; `finish()` sends the rest. */
async function startSlowRequest(port: number) {
  const socket: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let received = '';
  socket.on('data', (chunk) => {
    received += String(chunk);
  });
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(
    `POST /user HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${KEYS.aliceAll}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(BODY)}\r\n\r\n${BODY.slice(0, 5)}`,
  );
  return {
    received: () => received,
    /** Sends the rest of the body and resolves with the whole response once the server closes it. */
    finish: async () => {
      socket.end(BODY.slice(5));
      await closed;
      return received;
    },
  };
}

/** Whether a new TCP connection to `port` is refused. */
function connectionRefused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

/** Whether new connections to `port` become refused within a few seconds (the machine may be busy). */
async function refused(port: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (await connectionRefused(port)) return true;
    await sleep(50);
  }
  return false;
}

function statusOf(response: string): number {
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(response)?.[1]);
}

test('a port already taken stops the start with a message naming HOST and PORT', async () => {
  const config = {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    databaseUrl,
    logLevel: 'silent',
    summaryIntervalSeconds: 0,
  };
  const first = await startServer(config);
  const port = Number(new URL(first.url).port);
  try {
    await assert.rejects(startServer({ ...config, port }), {
      message: new RegExp(`^cannot listen on HOST 127\\.0\\.0\\.1, PORT ${port}: .*EADDRINUSE`),
    });
  } finally {
    await first.close();
  }
});

test('close() answers the request in flight, refuses new connections, then resolves', async () => {
  const server = await startServer({
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    databaseUrl,
    logLevel: 'silent',
    summaryIntervalSeconds: 0,
  });
  const port = Number(new URL(server.url).port);
  const request = await startSlowRequest(port);
  // Time for the server to read the headers: from then on the connection is busy, not idle.
  await sleep(300);
  assert.equal(request.received(), '', 'the server waits for the rest of the body');

  let closed = false;
  const closing = server.close().then(() => {
    closed = true;
  });
  assert.equal(await refused(port), true, 'no new connections once closing');
  assert.equal(closed, false, 'close waits for the request in flight');

  const response = await request.finish();
  // POST on /user is answered 405 in the envelope: a complete answer, not a cut connection.
  assert.equal(statusOf(response), 405, response);
  assert.ok(
    response.endsWith('{"success":false,"error":"Method Not Allowed","message":"Method Not Allowed"}'),
    response,
  );
  await closing;
  assert.equal(closed, true);
});

test('SIGTERM to `daybook serve` finishes the request in flight and exits 0', async () => {
  const child: ChildProcess = spawn('bash', [join(repoRoot, 'bin', 'daybook'), 'serve'], {
    cwd: repoRoot,
    env: {
      ...process.env,
      DAYBOOK_DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DAYBOOK_SUMMARY_INTERVAL_SECONDS: '0',
      DAYBOOK_REDIS_URL: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr!.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const port = await listeningPort(() => stdout);
    assert.ok(port > 0, `server did not start:\n${stdout}\n${stderr}`);

    const request = await startSlowRequest(port);
    await sleep(300);
    child.kill('SIGTERM');
    assert.equal(await refused(port), true, 'no new connections once SIGTERM arrived');
    const response = await request.finish();
    assert.equal(statusOf(response), 405, response);
    assert.equal(await exited, 0);
    assert.match(stderr, /SIGTERM received, finishing in-flight requests/);
    // The key sent with the request never reaches the log.
    assert.ok(!stdout.includes(KEYS.aliceAll) && !stderr.includes(KEYS.aliceAll));
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('SIGTERM or SIGINT to `npm start` stops the server (no orphan holds the port); it is named daybook', async () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const child: ChildProcess = spawn('npm', ['start', '--silent'], {
      cwd: repoRoot,
      env: {
        ...process.env,
        DAYBOOK_DATABASE_URL: databaseUrl,
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        DAYBOOK_SUMMARY_INTERVAL_SECONDS: '0',
        DAYBOOK_REDIS_URL: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (chunk) => {
      output += String(chunk);
    });
    child.stderr!.on('data', (chunk) => {
      output += String(chunk);
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const port = await listeningPort(() => output);
      assert.ok(port > 0, `server did not start:\n${output}`);
      const pid = Number(/"pid":(\d+)/.exec(output)?.[1]);
      const { readFileSync } = await import('node:fs');
      assert.equal(readFileSync(`/proc/${pid}/comm`, 'utf8').trim(), 'daybook');
      child.kill(signal);
      const ended = await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)]);
      assert.ok(ended, `npm start did not end within 20 s of ${signal}`);
      // The server itself ends too, and the port is free again.
      for (let i = 0; i < 100 && (await alive(pid)); i++) await sleep(50);
      assert.equal(await alive(pid), false, `the server (pid ${pid}) outlived npm after ${signal}`);
      assert.equal(await refused(port), true);
      assert.match(output, new RegExp(`${signal} received, finishing in-flight requests`));
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }
});

async function alive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
