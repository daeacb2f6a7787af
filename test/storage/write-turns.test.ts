/**
 * How a process's write transactions take turns (storage/database.ts, writeTransaction): on
 * SQLite one at a time, first come first served, and no more than about 10 ms of them in one
 * turn of the event loop, so a request read meanwhile is not made to wait for two rounds of
 * large writes; the step after a commit runs on the same connection before the next one; and
 * the commit that only moves stamps is not synced. On both databases where the behaviour is
 * shared.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'kysely';
import { writeTransaction } from '../../src/storage/database.ts';
import { createTestDatabase, DIALECTS, forEachDialect, type TestDatabase } from '../helper.ts';

/** Keeps the thread busy for `ms`, as a large batch's statements do. */
function busyFor(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

/** Resolves on the next turn of the event loop (after it has polled for I/O). */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

forEachDialect('write transactions', (dialect) => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase(dialect);
    await sql`create table turn_log (n integer not null)`.execute(database.storage.db);
  });
  after(() => database.drop());

  test('transactions asked for at once all commit, and one that fails lets the next run', async () => {
    const { storage } = database;
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, n) =>
        writeTransaction(storage, async (trx) => {
          await sql`insert into turn_log (n) values (${n})`.execute(trx);
          if (n === 3) throw new Error('this one fails');
          return n;
        }),
      ),
    );
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled'],
    );
    const rows = await sql<{ n: number }>`select n from turn_log order by n`.execute(storage.db);
    assert.deepEqual(
      rows.rows.map((r) => Number(r.n)),
      [0, 1, 2, 4, 5, 6, 7],
    );
    await sql`delete from turn_log`.execute(storage.db);
  });

  test('the step after the commit sees the commit, and its failure is the caller’s', async () => {
    const { storage } = database;
    let seen = -1;
    await writeTransaction(
      storage,
      (trx) => sql`insert into turn_log (n) values (41)`.execute(trx),
      async (db) => {
        seen = Number((await sql<{ n: number }>`select count(*) as n from turn_log`.execute(db)).rows[0]!.n);
      },
    );
    assert.equal(seen, 1);
    await assert.rejects(
      writeTransaction(
        storage,
        (trx) => sql`insert into turn_log (n) values (42)`.execute(trx),
        async () => {
          throw new Error('after the commit');
        },
      ),
      /after the commit/,
    );
    // The transaction itself had committed.
    const rows = await sql<{ n: number }>`select n from turn_log order by n`.execute(storage.db);
    assert.deepEqual(
      rows.rows.map((r) => Number(r.n)),
      [41, 42],
    );
    await sql`delete from turn_log`.execute(storage.db);
  });
});

test('SQLite: write transactions run one at a time in the order asked, each step after a commit before the next', async () => {
  const database = await createTestDatabase('sqlite');
  try {
    const events: string[] = [];
    let inside = 0;
    await Promise.all(
      Array.from({ length: 6 }, (_, n) =>
        writeTransaction(
          database.storage,
          async () => {
            inside++;
            assert.equal(inside, 1, 'two write transactions overlapped');
            events.push(`work ${n}`);
            await nextTurn();
            inside--;
          },
          async () => {
            events.push(`after ${n}`);
          },
        ),
      ),
    );
    assert.deepEqual(events, Array.from({ length: 6 }, (_, n) => [`work ${n}`, `after ${n}`]).flat());
  } finally {
    await database.drop();
  }
});

test('SQLite: small writes run several to a turn of the event loop; large ones one a turn, with the loop turning between', async () => {
  const database = await createTestDatabase('sqlite');
  try {
    const { storage } = database;
    // Small: five writes asked for together all end before the loop turns, unless they used up
    // the turn's 10 ms (a loaded machine that takes the thread away meanwhile).
    const ended: number[] = [];
    let turned = false;
    const started = performance.now();
    let turnedAfter = 0;
    const turn = nextTurn().then(() => {
      turned = true;
      turnedAfter = performance.now() - started;
    });
    const small = Array.from({ length: 5 }, (_, n) =>
      writeTransaction(storage, async () => {
        ended.push(n);
        return turned;
      }),
    );
    const afterTurn = await Promise.all(small);
    await turn;
    assert.deepEqual(ended, [0, 1, 2, 3, 4]);
    const waited = afterTurn.indexOf(true);
    if (waited !== -1) {
      assert.ok(waited >= 2, `small writes ran one a turn: ${afterTurn.join(', ')}`);
      assert.ok(turnedAfter >= 10, `a small write waited for the loop to turn after ${turnedAfter.toFixed(1)} ms`);
    }

    // Large: each takes 15 ms of the thread; between two of them the loop turns (it would read
    // the connections there), so a callback queued for the next turn runs in between.
    const order: string[] = [];
    const large = (n: number) =>
      writeTransaction(storage, async () => {
        order.push(`large ${n}`);
        busyFor(15);
      });
    await nextTurn();
    const writes = [large(0), large(1), large(2)];
    setImmediate(() => order.push('turn'));
    await Promise.all(writes);
    assert.equal(order[0], 'large 0');
    assert.ok(
      order.indexOf('turn') > 0 && order.indexOf('turn') < order.indexOf('large 1'),
      `the loop did not turn between two large writes: ${order.join(', ')}`,
    );
    assert.deepEqual(
      order.filter((e) => e !== 'turn'),
      ['large 0', 'large 1', 'large 2'],
    );

    // A write asked for while others wait goes behind them, though the first is done.
    const queued: string[] = [];
    await nextTurn();
    const first = writeTransaction(storage, async () => {
      queued.push('a');
      busyFor(12);
    });
    const second = writeTransaction(storage, async () => {
      queued.push('b');
    });
    await first;
    const third = writeTransaction(storage, async () => {
      queued.push('c');
    });
    await Promise.all([second, third]);
    assert.deepEqual(queued, ['a', 'b', 'c']);
  } finally {
    await database.drop();
  }
});

test('SQLite: the commit run unsynced goes back to synced commits, whatever the work did; the busy timeout is kept', async () => {
  const database = await createTestDatabase('sqlite');
  try {
    const sqlite = database.storage.sqlite!;
    const level = () => Number(sqlite.prepare('pragma synchronous').pluck().get());
    assert.equal(level(), 2, 'FULL');
    assert.equal(await sqlite.unsynced(async () => level()), 1, 'NORMAL inside');
    assert.equal(level(), 2);
    // Nested (a key's stamp, a restamp inside a write transaction's): synced again only at the outermost end.
    const nested = await sqlite.unsynced(async () => {
      const inner = await sqlite.unsynced(async () => level());
      return [inner, level()];
    });
    assert.deepEqual(nested, [1, 1]);
    assert.equal(level(), 2);
    await assert.rejects(
      sqlite.unsynced(async () => {
        throw new Error('failed inside');
      }),
      /failed inside/,
    );
    assert.equal(level(), 2);
    // A write transaction takes the lock without waiting, then waits as set again.
    const busyTimeout = () => Number(sqlite.prepare('pragma busy_timeout').pluck().get());
    sqlite.setBusyTimeout(50);
    let during = -1;
    await writeTransaction(database.storage, async () => {
      during = busyTimeout();
    });
    assert.equal(during, 50, 'the transaction waits as set once it has the lock');
    assert.equal(busyTimeout(), 50);
    assert.equal(level(), 2);
  } finally {
    await database.drop();
  }
});

test('PostgreSQL: at most DAYBOOK_PG_WRITERS (3) large write transactions at once, the others begin in the order they asked; reads and small writes go on meanwhile', {
  skip: !DIALECTS.includes('postgres'),
}, async () => {
  const database = await createTestDatabase('postgres');
  // The first writes hold their turns until the test has looked (a sleep of theirs was once
  // shorter than a read and a small write took on a loaded machine); opened at the end whatever
  // happens, so that a failure leaves no transaction holding the database.
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  try {
    const { storage } = database;
    await sql`create table turn_log (n integer not null)`.execute(storage.db);
    // Connections open already, so each write begins as soon as it has its turn.
    await Promise.all(Array.from({ length: 4 }, () => sql`select pg_sleep(0.01)`.execute(storage.db)));
    let running = 0;
    let most = 0;
    const began: number[] = [];
    const writes = Array.from({ length: 8 }, (_, n) =>
      writeTransaction(
        storage,
        async (trx) => {
          began.push(n);
          most = Math.max(most, ++running);
          try {
            await sql`insert into turn_log (n) values (${n})`.execute(trx);
            await gate;
            await sql`select pg_sleep(0.01)`.execute(trx);
            if (n === 1) throw new Error('this one fails');
          } finally {
            running--;
          }
        },
        undefined,
        { large: true },
      ),
    );
    const results = Promise.allSettled(writes);
    while (running < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    // While three writes hold their connections and five wait, a read gets one of the pool's.
    const read = await sql<{ n: number }>`select count(*)::int as n from turn_log`.execute(storage.db);
    assert.equal(read.rows[0]!.n, 0, 'nothing committed yet');
    assert.deepEqual([...began].sort(), [0, 1, 2]);
    // A small write does not wait for a turn: it commits while the large ones still run and wait.
    await writeTransaction(storage, (trx) => sql`insert into turn_log (n) values (100)`.execute(trx));
    assert.equal(running, 3);
    assert.equal(began.length, 3);
    open();
    await results;
    assert.equal(most, 3);
    // In turn: three run at once, so a write begins at most two places away from where it asked
    // (writes granted their turns together begin in the order their BEGINs are answered).
    assert.equal(began.length, 8);
    for (const [place, n] of began.entries())
      assert.ok(Math.abs(n - place) <= 2, `writes began in the order ${began.join(', ')}`);
    assert.deepEqual(
      (await results).map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled'],
    );
    const rows = await sql<{ n: number }>`select n from turn_log order by n`.execute(storage.db);
    assert.deepEqual(
      rows.rows.map((r) => Number(r.n)),
      [0, 2, 3, 4, 5, 6, 7, 100],
    );
  } finally {
    open();
    await database.drop();
  }
});
