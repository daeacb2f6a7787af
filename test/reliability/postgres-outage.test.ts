/**
 * docs/operations.md, "When the database goes away": a PostgreSQL server that stops
 * (`pg_ctl stop -m fast`) or cuts connections (`pg_terminate_backend`) under load never ends the
 * server process nor earns a 500. Every request meanwhile is answered 503 `Database unavailable`
 * in the envelope with Retry-After, the outage is logged in one line when it starts and one when
 * it ends, and requests succeed again within a second of the database's return: on the server's
 * thread, on the report worker threads (their own pools) and in the summary schedule, with
 * the rate limits counted in the process (no Redis).
 *
 * The test runs a PostgreSQL cluster of its own (initdb into a temporary directory, on a free
 * port), never the shared server; it is skipped where initdb is not installed, and in
 * `npm run test:fast` (SQLite only). A server that stops answering with its connections open
 * is postgres-freeze.test.ts.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { FastifyLoggerOptions } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { buildApp, loggerOptions } from '../../src/http/app.ts';
import { MemoryRateLimiter } from '../../src/http/rate-limit.ts';
import type { App } from '../../src/http/types.ts';
import { startSummaryScheduler, type SummaryScheduler } from '../../src/services/summaries/scheduler.ts';
import { migrate, openStorage, type Storage } from '../../src/storage/database.ts';
import { DEFAULT_NOW, DIALECTS, EXAMPLE, KEYS } from '../helper.ts';
import { Cluster, NO_CLUSTER } from './cluster.ts';

const DAY = 86_400_000;

interface Answer {
  status: number;
  body: string;
  retryAfter: string | undefined;
}

/** The requests of the load: reads, a large report (a worker thread) and a write (a transaction). */
const LOAD = [
  { method: 'GET', url: '/user' },
  { method: 'GET', url: '/projects' },
  {
    method: 'POST',
    url: '/report',
    payload: { dateRange: { from: DEFAULT_NOW - 90 * DAY, to: DEFAULT_NOW }, aggregationLevel: 'day' },
  },
  { method: 'POST', url: '/projects', payload: { name: 'Outage' } },
] as const;

/** Skipped where initdb is missing, and where PostgreSQL is not among the dialects tested (npm run test:fast). */
const skip = !DIALECTS.includes('postgres') ? 'PostgreSQL is not among DAYBOOK_TEST_DIALECTS' : (NO_CLUSTER ?? false);

describe('PostgreSQL going away', { skip }, () => {
  let cluster: Cluster;
  let storage: Storage;
  let app: App;
  let summaries: SummaryScheduler;
  let summaryFailures = 0;
  let summaryRuns = 0;
  const lines: { level: number; msg: string; [field: string]: unknown }[] = [];
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);

  before(async () => {
    process.on('uncaughtException', onUncaught);
    process.on('unhandledRejection', onUncaught);
    cluster = await Cluster.create();
    await cluster.admin('create database daybook');
    const url = cluster.url('daybook');
    storage = openStorage(url);
    await migrate(storage);
    await importDataset(storage, EXAMPLE, { now: () => DEFAULT_NOW });
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    app = await buildApp(
      {
        storage,
        config: {
          ...loadConfig({}),
          databaseUrl: url,
          rateLimitPerMinute: 1_000_000,
          authFailuresPerMinute: 1_000_000,
          keyCacheMs: 0,
          reportWorkers: 2,
        },
        rateLimiter: new MemoryRateLimiter(() => DEFAULT_NOW),
        now: () => DEFAULT_NOW,
      },
      { logger: { ...(loggerOptions('info') as FastifyLoggerOptions), stream: sink } },
    );
    await app.ready();
    // The schedule as `daybook serve` runs it, every second: its failing runs must not end the process.
    summaries = startSummaryScheduler({
      storage,
      intervalSeconds: 1,
      now: () => DEFAULT_NOW,
      onRun: () => {
        summaryRuns++;
      },
      onError: (err) => {
        if (!storage.health.suspect(err)) throw err;
        summaryFailures++;
      },
    });
  });

  after(async () => {
    await summaries?.stop();
    await app?.close();
    await storage?.close();
    await cluster?.remove();
    process.off('uncaughtException', onUncaught);
    process.off('unhandledRejection', onUncaught);
  });

  const ask = async (i: number): Promise<Answer> => {
    const request = LOAD[i % LOAD.length]!;
    const response = await app.inject({
      method: request.method,
      url: request.url,
      headers: { 'x-api-key': KEYS.aliceAll },
      ...('payload' in request ? { payload: request.payload } : {}),
    });
    const retryAfter = response.headers['retry-after'];
    return { status: response.statusCode, body: response.body, retryAfter: retryAfter as string | undefined };
  };

  /** `clients` loops of requests until `stop` resolves; every answer, in order. */
  const load = async (clients: number, stop: Promise<unknown>): Promise<Answer[]> => {
    let stopping = false;
    const end = () => {
      stopping = true;
    };
    // A failing `stop` is the caller's to report (it awaits it too).
    stop.then(end, end);
    const answers: Answer[] = [];
    await Promise.all(
      Array.from({ length: clients }, async (_, client) => {
        for (let i = client; !stopping; i += clients) {
          answers.push(await ask(i));
          // Light load: a few hundred requests a second.
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }),
    );
    return answers;
  };

  /** Every answer is a success or a 503 of the database in the envelope, with Retry-After. */
  const assertServedOrUnavailable = (answers: Answer[]) => {
    for (const answer of answers) {
      if (answer.status < 300) continue;
      assert.equal(answer.status, 503, answer.body);
      assert.deepEqual(JSON.parse(answer.body), {
        success: false,
        error: 'Database unavailable',
        message: 'Database unavailable',
      });
      assert.equal(answer.retryAfter, '2');
    }
  };

  const outageLines = () => lines.filter((l) => /database/i.test(l.msg) && l.level >= 30);

  test('stopped under load: 503 with Retry-After while it is down, served within a second of its return', async () => {
    assert.equal((await ask(0)).status, 200);
    const stopped = (async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      await cluster.stop();
      // Down for a while: every request meanwhile is a 503.
      await new Promise((resolve) => setTimeout(resolve, 1000));
    })();
    const answers = await load(4, stopped);
    assertServedOrUnavailable(answers);
    assert.ok(
      answers.some((a) => a.status < 300),
      'requests were served before the stop',
    );
    const down = await Promise.all(LOAD.map((_, i) => ask(i)));
    assert.deepEqual(
      down.map((a) => a.status),
      LOAD.map(() => 503),
    );
    assertServedOrUnavailable(down);
    assert.equal(storage.health.available, false);

    const ready = await app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    assert.equal(ready.headers['retry-after'], '2');
    assert.equal(ready.json().error, 'Database unavailable');

    await cluster.start();
    const back = Date.now();
    let served: number | null = null;
    while (Date.now() - back < 5000) {
      const answers = await Promise.all(LOAD.map((_, i) => ask(i)));
      assertServedOrUnavailable(answers);
      if (answers.every((a) => a.status < 300)) {
        served = Date.now() - back;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(served !== null && served < 1000, `served again ${served} ms after the database's return`);
    // The watch sees it back within its probe interval.
    const seen = Date.now();
    while (!storage.health.available && Date.now() - seen < 2000) await new Promise((r) => setTimeout(r, 20));
    assert.equal(storage.health.available, true);
  });

  test('connections terminated under load: no crash, and later requests succeed', async () => {
    const terminated = (async () => {
      for (let round = 0; round < 3; round++) {
        await new Promise((resolve) => setTimeout(resolve, 150));
        const { rows } = await cluster.admin(
          'select pg_terminate_backend(pid) as done from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          ['daybook'],
        );
        assert.ok(rows.length > 0, 'connections were open to terminate');
      }
      await new Promise((resolve) => setTimeout(resolve, 150));
    })();
    const answers = await load(4, terminated);
    await terminated;
    assertServedOrUnavailable(answers);
    const after = await Promise.all(LOAD.map((_, i) => ask(i)));
    assert.deepEqual(
      after.map((a) => a.status),
      LOAD.map((l) => (l.method === 'POST' && l.url === '/projects' ? 201 : 200)),
      after.map((a) => a.body).join('\n'),
    );
  });

  test('the outage is logged once when it starts and once when it ends, without stacks', () => {
    const outage = outageLines();
    const down = outage.filter((l) => l.msg.startsWith('database unavailable'));
    const up = outage.filter((l) => l.msg === 'database available again');
    // The stop is one outage; terminated connections on a database that answers are none
    // (a probe that meets the restart in progress may count one more).
    assert.ok(down.length >= 1 && down.length <= 2, JSON.stringify(outage));
    assert.equal(up.length, down.length, JSON.stringify(outage));
    assert.ok(outage.length <= 4, JSON.stringify(outage));
    assert.deepEqual(
      lines.filter((l) => l.level >= 50 || 'err' in l),
      [],
    );
    assert.deepEqual(uncaught, []);
  });

  test('the summary schedule failed its runs during the outage and ran again after it', async () => {
    assert.ok(summaryFailures >= 1, 'a run met the outage');
    const runs = summaryRuns;
    const start = Date.now();
    while (summaryRuns === runs && Date.now() - start < 3000) await new Promise((r) => setTimeout(r, 50));
    assert.ok(summaryRuns > runs, 'the schedule runs again');
  });
});
