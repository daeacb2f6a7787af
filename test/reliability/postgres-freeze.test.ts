/**
 * docs/reliability.md, "Outages": a PostgreSQL server that stops answering without closing its
 * connections (every process of it stopped with SIGSTOP, as a hung host or a network that drops
 * packets would leave it). `daybook serve`, asked over HTTP, answers every request that needs
 * the database 503 `Database unavailable` in the envelope with Retry-After once
 * DAYBOOK_PG_STATEMENT_TIMEOUT_MS (and the connection's wait, DAYBOOK_PG_CONNECT_TIMEOUT_MS) has
 * passed, instead of holding it for minutes; answers what needs no database meanwhile; logs the
 * outage in one line when it starts and one when it ends; and serves again by itself once the
 * server resumes (SIGCONT), with no connection left inside a transaction.
 *
 * The test runs a PostgreSQL cluster of its own (test/reliability/cluster.ts), never the shared
 * server; it is skipped where initdb is not installed, and in `npm run test:fast` (SQLite only).
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import { migrate, openStorage } from '../../src/storage/database.ts';
import { DEFAULT_NOW, DIALECTS, EXAMPLE, KEYS } from '../helper.ts';
import { Cluster, NO_CLUSTER } from './cluster.ts';
import { killHard, serve } from './processes.ts';

const DAY = 86_400_000;
const STATEMENT_TIMEOUT_MS = 1000;
const CONNECT_TIMEOUT_MS = 1000;
/**
 * How long a request may take while the database is frozen: several times what the server
 * waits before giving up (the statement timeout and its grace of 1 s, or a connection's wait),
 * and far below the 120 s a statement used to wait. Not a speed figure: a request that has no
 * answer by then is cut off and fails the test.
 */
const BOUND_MS = 4 * (STATEMENT_TIMEOUT_MS + 1000 + CONNECT_TIMEOUT_MS);

/** Requests that need the database: a read, a large report (a worker thread), a write (a transaction). */
const NEEDS_DATABASE = [
  { method: 'GET', url: '/projects' },
  {
    method: 'POST',
    url: '/report',
    payload: { dateRange: { from: DEFAULT_NOW - 90 * DAY, to: DEFAULT_NOW }, aggregationLevel: 'day' },
  },
  { method: 'POST', url: '/projects', payload: { name: 'Frozen' } },
] as const;

interface Answer {
  status: number;
  body: string;
  retryAfter: string | null;
}

const skip = !DIALECTS.includes('postgres') ? 'PostgreSQL is not among DAYBOOK_TEST_DIALECTS' : (NO_CLUSTER ?? false);

describe('PostgreSQL frozen', { skip }, () => {
  let cluster: Cluster;
  let server: { child: ChildProcess; url: string };
  const lines: { level: number; msg: string; [field: string]: unknown }[] = [];

  before(async () => {
    cluster = await Cluster.create();
    await cluster.admin('create database daybook');
    const url = cluster.url('daybook');
    const storage = openStorage(url);
    try {
      await migrate(storage);
      await importDataset(storage, EXAMPLE, { now: () => DEFAULT_NOW });
    } finally {
      await storage.close();
    }
    server = await serve(url, {
      DAYBOOK_PG_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DAYBOOK_PG_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DAYBOOK_REPORT_WORKERS: '1',
      // The key, once verified, is not read again: GET /user then needs no database.
      DAYBOOK_KEY_CACHE_MS: '600000',
      LOG_LEVEL: 'info',
    });
    let rest = '';
    server.child.stdout!.on('data', (chunk: Buffer) => {
      const text = rest + chunk.toString();
      const complete = text.split('\n');
      rest = complete.pop()!;
      for (const line of complete) if (line.startsWith('{')) lines.push(JSON.parse(line));
    });
  });

  after(async () => {
    if (server) await killHard(server.child);
    await cluster?.remove();
  });

  const ask = async (request: { method: string; url: string; payload?: unknown }): Promise<Answer> => {
    let response: Response;
    try {
      response = await fetch(`${server.url}${request.url}`, {
        method: request.method,
        headers: {
          'x-api-key': KEYS.aliceAll,
          ...(request.payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: request.payload === undefined ? undefined : JSON.stringify(request.payload),
        signal: AbortSignal.timeout(BOUND_MS),
      });
    } catch (err) {
      assert.fail(`${request.method} ${request.url}: no answer within ${BOUND_MS} ms (${(err as Error).message})`);
    }
    return { status: response.status, body: await response.text(), retryAfter: response.headers.get('retry-after') };
  };

  const assertUnavailable = (answer: Answer) => {
    assert.equal(answer.status, 503, answer.body);
    assert.deepEqual(JSON.parse(answer.body), {
      success: false,
      error: 'Database unavailable',
      message: 'Database unavailable',
    });
    assert.equal(answer.retryAfter, '2');
  };

  const outage = () => lines.filter((l) => /^database (unavailable|available again)/.test(l.msg));

  test('frozen: requests that need the database are 503 with Retry-After, the rest are served, the process stays up', async () => {
    const served = await Promise.all(NEEDS_DATABASE.map(ask));
    assert.deepEqual(
      served.map((a) => a.status),
      [200, 200, 201],
      served.map((a) => a.body).join('\n'),
    );
    assert.equal((await ask({ method: 'GET', url: '/user' })).status, 200);

    await cluster.freeze();
    // The first round meets connections that wait for an answer; the second, a database the
    // server already knows is away.
    for (let round = 0; round < 2; round++) {
      let settled = 0;
      const waiting = Promise.all(
        NEEDS_DATABASE.map(async (request) => {
          const answer = await ask(request);
          settled++;
          return answer;
        }),
      );
      // Meanwhile the server's thread is free: what needs no database is answered at once.
      const health = await ask({ method: 'GET', url: '/healthz' });
      const user = await ask({ method: 'GET', url: '/user' });
      assert.equal(settled, 0, 'the answers that need no database came before those that wait for it');
      assert.equal(health.status, 200, health.body);
      assert.equal(user.status, 200, user.body);
      for (const answer of await waiting) assertUnavailable(answer);
    }
    assertUnavailable(await ask({ method: 'GET', url: '/readyz' }));
    assert.equal(server.child.exitCode, null, 'the server process is running');
    assert.deepEqual(
      outage().map((l) => l.msg),
      ['database unavailable: requests are answered 503 until it answers again'],
    );
  });

  test('resumed: served again within two seconds, and no connection is left inside a transaction', async () => {
    cluster.thaw();
    const back = Date.now();
    let servedAfter: number | null = null;
    while (Date.now() - back < BOUND_MS) {
      const answers = await Promise.all(NEEDS_DATABASE.map(ask));
      for (const answer of answers) if (answer.status >= 300) assertUnavailable(answer);
      if (answers.every((a) => a.status < 300)) {
        servedAfter = Date.now() - back;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(servedAfter !== null && servedAfter < 2000, `served again ${servedAfter} ms after the database resumed`);

    // Connections given up on while frozen were closed, not returned to the pool halfway
    // through a statement or a transaction: more requests are all served, and once the
    // server's processes have seen those connections gone, none is left in a transaction.
    const more = await Promise.all(Array.from({ length: 4 }, () => NEEDS_DATABASE.map(ask)).flat());
    assert.deepEqual(
      more.map((a) => a.status),
      Array.from({ length: 4 }, () => [200, 200, 201]).flat(),
    );
    const inTransaction = async () =>
      Number(
        (
          await cluster.admin(
            "select count(*) as n from pg_stat_activity where datname = 'daybook' and state like 'idle in transaction%'",
          )
        ).rows[0].n,
      );
    const since = Date.now();
    while ((await inTransaction()) > 0 && Date.now() - since < BOUND_MS) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(await inTransaction(), 0);

    const told = Date.now();
    while (outage().length < 2 && Date.now() - told < BOUND_MS) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(
      outage().map((l) => l.msg),
      ['database unavailable: requests are answered 503 until it answers again', 'database available again'],
    );
    // Every failure was a 503 told by those two lines: no error, no stack, no warning per
    // request (/readyz says in a line of its own when it got no answer in its own time).
    assert.deepEqual(
      lines.filter((l) => l.level >= 50 || 'err' in l),
      [],
    );
    assert.deepEqual(
      lines.filter((l) => l.level >= 40 && !outage().includes(l) && l.msg !== 'database not ready'),
      [],
    );
    assert.equal(server.child.exitCode, null, 'the server process is running');
  });
});
