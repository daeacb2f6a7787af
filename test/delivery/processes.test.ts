/**
 * Summary delivery across real `daybook serve` processes, on real time (docs/delivery.md,
 * "Reliability"): two servers on one PostgreSQL database deliver each summary exactly once; a
 * delivery survives a restart between its attempts, a process killed while it waits for the
 * receiver, and a graceful stop in the middle of an attempt, with the same `webhook-id`.
 */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, describe, type TestContext, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import type { Dialect } from '../../src/storage/database.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import {
  DIALECTS,
  type TestDatabase,
  createSharedTestDatabase,
  createTestDatabase,
  forEachDialect,
  until,
} from '../helper.ts';
import { killHard, serve } from '../reliability/processes.ts';
import {
  daysAgo,
  type Receiver,
  startReceiver,
  terminate,
  webhookDestinations,
  workOn,
  workUsers,
} from './process-support.ts';

const files = tempFiles();
after(() => files.remove());

/** What every server here runs with; the summary generator and the attempt's limit vary. */
const SERVER_ENV = {
  DAYBOOK_DELIVERY_ALLOW_PRIVATE: 'true',
  DAYBOOK_DELIVERY_POLL_MS: '100',
};

async function deliveriesIn(database: TestDatabase) {
  return database.storage.db.selectFrom('deliveries').selectAll().orderBy('created_at').execute();
}

describe('two server processes on one PostgreSQL database', { skip: !DIALECTS.includes('postgres') }, () => {
  const USERS = 16;
  /** Delivered: days that ended less than a week before any build, whatever the hour. */
  const RECENT = [2, 3, 4, 5, 6].map(daysAgo);
  /** Built but not delivered (more than a week old): work for the generators to share. */
  const OLDER = Array.from({ length: 20 }, (_, i) => daysAgo(10 + i));
  const CONCURRENCY = 2;

  let database: TestDatabase;
  let receiver: Receiver;
  const servers: ChildProcess[] = [];
  before(async () => {
    database = await createTestDatabase('postgres');
    receiver = await startReceiver({ delayMs: 20 });
  });
  after(async () => {
    for (const child of servers) await killHard(child);
    await receiver?.close();
    await database?.drop();
  });

  test('deliver each summary exactly once, each built by one of them and attempted by one at a time', {
    timeout: 90_000,
  }, async () => {
    const { users, dataset } = workUsers(USERS);
    await importDataset(database.storage, files.write('two-servers.json', dataset), { now: Date.now });
    await webhookDestinations('postgres', database, receiver, users);

    const env = {
      ...SERVER_ENV,
      DAYBOOK_SUMMARY_INTERVAL_SECONDS: '1',
      DAYBOOK_DELIVERY_CONCURRENCY: String(CONCURRENCY),
      // The attempts that wait for the stalled receiver outlast the generators' work.
      DAYBOOK_DELIVERY_TIMEOUT_SECONDS: '60',
      LOG_LEVEL: 'info',
      // Its log is read for warnings: rate limits in the process, whatever Redis the machine has.
      DAYBOOK_REDIS_URL: '',
    };
    const spawned = (child: ChildProcess) => servers.push(child);
    const started = await Promise.all([serve(database.url, env, spawned), serve(database.url, env, spawned)]);
    const exits: string[] = [];
    const logs = started.map(({ child }, n) => {
      child.on('exit', (code, signal) => exits.push(`server ${n} exited with ${code ?? signal}`));
      const log = { text: '' };
      child.stdout?.on('data', (d) => {
        log.text += d;
      });
      child.stderr?.on('data', (d) => {
        log.text += d;
      });
      return log;
    });

    // Both servers are up and generating every second when the work arrives, half through each.
    // The receiver stalls until every delivery is queued, then both drain the backlog at once.
    receiver.hold();
    for (const [i, user] of users.entries()) {
      const res = await fetch(`${started[i % 2]!.url}/activities`, {
        method: 'POST',
        headers: { 'x-api-key': user.key, 'content-type': 'application/json' },
        body: JSON.stringify(workOn(user.id, [...RECENT, ...OLDER])),
      });
      assert.equal(res.status, 200, await res.text());
    }

    const expected = users.flatMap((u) => RECENT.map((day) => `${u.id} day ${day}`)).sort();
    await until('every delivery queued', 60_000, async () => (await deliveriesIn(database)).length >= expected.length);
    receiver.release();
    await until('every delivery made', 60_000, async () => {
      const rows = await deliveriesIn(database);
      return rows.length >= expected.length && rows.every((r) => r.status !== 'pending');
    });
    // A summary queued twice would be on its way by now: the generators run every second.
    await new Promise((resolve) => setTimeout(resolve, 2500));

    assert.deepEqual(exits, [], 'both servers ran throughout');
    assert.deepEqual(
      logs.flatMap(({ text }) => text.split('\n').filter((line) => /"level":(?:40|50|60)\b/.test(line))),
      [],
      'neither logged a warning or an error',
    );
    const ids = receiver.received.map((r) => r.webhookId);
    assert.equal(new Set(ids).size, ids.length, 'no webhook-id arrived twice');
    assert.ok(
      receiver.received.every((r) => r.verified && r.type === 'summary.created'),
      'every request was signed with its destination secret',
    );
    assert.ok(
      receiver.received.every((r) => r.path === `/hook/${r.userId}`),
      "each user's summary went to that user's destination",
    );
    assert.deepEqual(receiver.received.map((r) => `${r.userId} ${r.level} ${r.start}`).sort(), expected);
    const rows = await deliveriesIn(database);
    assert.deepEqual(
      rows.map((r) => [r.status, r.attempts]),
      expected.map(() => ['delivered', 1]),
    );
    // Both processes were attempting deliveries at the same moment: one holds at most CONCURRENCY.
    assert.ok(receiver.maxInFlight > CONCURRENCY, `at most ${receiver.maxInFlight} requests at once`);
    // Every summary was built by one of the two generators (their logs count what each built).
    // Which one builds how many is the machine's timing: on a loaded machine one server's runs
    // came first after every write and built all 480. That several generators build each
    // summary once is test/summaries/concurrency.test.ts's; both servers attempting deliveries
    // at once is checked above.
    const built = logs.map(({ text }) =>
      [...text.matchAll(/"built":(\d+)/g)].reduce((n, [, count]) => n + Number(count), 0),
    );
    const stored = await database.storage.db
      .selectFrom('summaries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    assert.ok(
      Number(stored.n) > 0 && built[0]! + built[1]! >= Number(stored.n),
      `summaries built by the servers: ${built.join(' + ')}, stored: ${stored.n}`,
    );
  });
});

forEachDialect('a delivery across server processes', (dialect: Dialect) => {
  /**
   * A user with an hour of work the day before yesterday and a webhook destination of day
   * summaries on a new receiver: the first server to start builds one summary and queues its
   * one delivery. Everything is removed after the test, whatever its outcome.
   */
  async function oneDelivery(t: TestContext, name: string) {
    const database = await createSharedTestDatabase(dialect);
    const receiver = await startReceiver();
    const servers: ChildProcess[] = [];
    t.after(async () => {
      for (const child of servers) await killHard(child);
      await receiver.close();
      await database.drop();
    });
    const { users, dataset } = workUsers(1);
    const user = users[0]!;
    await importDataset(
      database.storage,
      files.write(`${name}-${dialect}.json`, {
        ...dataset,
        activities: workOn(user.id, [daysAgo(2)]).activities.map((a) => ({ ...a, userId: user.id })),
      }),
      { now: Date.now },
    );
    const destination = (await webhookDestinations(dialect, database, receiver, users)).get(user.id)!;
    return {
      database,
      receiver,
      /**
       * A server with attempts limited to `timeoutSeconds`; it generates once, at start, and may
       * deliver before it answers: `spawned` gets it at once.
       */
      start(timeoutSeconds: number, spawned?: (child: ChildProcess) => void) {
        return serve(
          database.url,
          {
            ...SERVER_ENV,
            DAYBOOK_SUMMARY_INTERVAL_SECONDS: '3600',
            DAYBOOK_DELIVERY_TIMEOUT_SECONDS: String(timeoutSeconds),
          },
          (child) => {
            servers.push(child);
            spawned?.(child);
          },
        );
      },
      /** GET /destinations/:id/deliveries on `url`: the attempts, newest first. */
      async attempts(url: string) {
        const res = await fetch(`${url}/destinations/${destination}/deliveries`, {
          headers: { 'x-api-key': user.key },
        });
        assert.equal(res.status, 200);
        return ((await res.json()) as { attempts: Record<string, unknown>[] }).attempts;
      },
      async delivery() {
        const rows = await deliveriesIn(database);
        assert.equal(rows.length, 1, 'one delivery queued');
        return rows[0]!;
      },
    };
  }

  test('a restart between two attempts: the retry arrives with the same webhook-id', { timeout: 60_000 }, async (t) => {
    const s = await oneDelivery(t, 'restart');
    s.receiver.answer = (_, index) => (index === 0 ? 500 : 200);
    const first = await s.start(15);
    await until('the first attempt recorded', 20_000, async () => (await s.attempts(first.url)).length === 1);
    const stopped = await terminate(first.child, 20_000);
    assert.equal(stopped.code, 0);
    assert.equal(s.receiver.received.length, 1, 'one attempt before the restart');
    assert.equal((await s.delivery()).status, 'pending');

    const second = await s.start(15);
    // The retry is due 5 s after the first attempt.
    await until('the retry delivered', 20_000, async () => (await s.delivery()).status === 'delivered');
    const [failed, delivered] = s.receiver.received;
    assert.equal(s.receiver.received.length, 2);
    assert.ok(failed!.verified && delivered!.verified);
    assert.equal(delivered!.webhookId, failed!.webhookId);
    assert.equal(delivered!.answer, 200);
    assert.ok(delivered!.at - failed!.at >= 5000, 'retried on the schedule, 5 s later');
    assert.deepEqual(
      (await s.attempts(second.url)).map((a) => [a.deliveryId, a.attempt, a.outcome, a.statusCode]),
      [
        [failed!.webhookId, 2, 'delivered', 200],
        [failed!.webhookId, 1, 'failed', 500],
      ],
    );
  });

  test('a process killed while it waits for the receiver: another delivers once its claim has ended', {
    timeout: 60_000,
  }, async (t) => {
    const s = await oneDelivery(t, 'killed');
    let first: ChildProcess | undefined;
    // Killed the moment the request arrives, well within the attempt's 1 s limit.
    s.receiver.answer = (_, index) => {
      if (index > 0) return 200;
      first?.kill('SIGKILL');
      return 'hold';
    };
    // It may deliver before it answers.
    const starting = s.start(1, (child) => {
      first = child;
    });
    const held = await s.receiver.request(0);
    await starting.catch(() => {});
    await killHard(first!);
    const claimed = await s.delivery();
    assert.equal(claimed.status, 'pending');
    assert.equal(claimed.attempts, 0, 'the attempt was never recorded');
    const leaseEnd = Number(claimed.lease_until);
    assert.ok(leaseEnd > held.at, 'the delivery is still claimed by the dead process');

    const second = await s.start(1);
    // A claim lasts twice the attempt's limit and 5 s: 7 s.
    await until('delivered by the next process', 30_000, async () => (await s.delivery()).status === 'delivered');
    assert.equal(s.receiver.received.length, 2);
    const delivered = s.receiver.received[1]!;
    assert.ok(delivered.verified);
    assert.equal(delivered.webhookId, held.webhookId);
    assert.ok(delivered.at >= leaseEnd, 'not attempted again before the dead process’s claim ended');
    assert.deepEqual(
      (await s.attempts(second.url)).map((a) => [a.deliveryId, a.attempt, a.outcome]),
      [[held.webhookId, 1, 'delivered']],
    );
  });

  test('a graceful stop mid-attempt: the process exits at once and gives the delivery back', {
    timeout: 60_000,
  }, async (t) => {
    const s = await oneDelivery(t, 'stopped');
    s.receiver.answer = (_, index) => (index === 0 ? 'hold' : 200);
    // A minute's limit, so a claim of 2 min 5 s: neither may be waited for.
    const first = await s.start(60);
    const held = await s.receiver.request(0);
    const stopped = await terminate(first.child, 30_000);
    assert.equal(stopped.code, 0);
    const givenBack = await s.delivery();
    assert.equal(givenBack.status, 'pending');
    assert.equal(givenBack.attempts, 0, 'an attempt cut short is not counted');
    assert.equal(givenBack.lease_until, null, 'no longer claimed');

    const second = await s.start(60);
    await until('delivered by the next process', 30_000, async () => (await s.delivery()).status === 'delivered');
    assert.equal(s.receiver.received.length, 2);
    assert.equal(s.receiver.received[1]!.webhookId, held.webhookId);
    assert.ok(s.receiver.received[1]!.verified);
    assert.deepEqual(
      (await s.attempts(second.url)).map((a) => [a.deliveryId, a.attempt, a.outcome]),
      [[held.webhookId, 1, 'delivered']],
    );
  });
});
