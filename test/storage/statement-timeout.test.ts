/**
 * PostgreSQL statements of a serving process are bounded (storage/database.ts,
 * setStatementTimeout; DAYBOOK_PG_STATEMENT_TIMEOUT_MS): the server cancels one that runs too
 * long, which leaves its connection clean, and one whose answer never comes (a frozen server, a
 * stalled network) is given up on and its connection dropped, never handed to the next request
 * halfway through a statement or a transaction. Over HTTP: a request whose statement is
 * cancelled is a 503 (test/http/slow-database.test.ts); a server frozen with SIGSTOP,
 * test/reliability/postgres-freeze.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openStorage, type Storage } from '../../src/storage/database.ts';
import { isDatabaseUnavailable } from '../../src/storage/health.ts';
import { DIALECTS, type TestDatabase, createTestDatabase, stallableRelay } from '../helper.ts';

const TIMEOUT_MS = 300;

describe('statement timeout [postgres]', { skip: !DIALECTS.includes('postgres') }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase('postgres');
    await sql`create table scratch (id text primary key)`.execute(database.storage.db);
  });
  after(() => database?.drop());

  const shown = async (storage: Storage) =>
    (await sql<{ statement_timeout: string }>`show statement_timeout`.execute(storage.db)).rows[0]!.statement_timeout;

  test('set for serving, it applies to every connection handed out, also those opened before', async () => {
    const storage = openStorage(database.url);
    try {
      const before = await shown(storage);
      assert.notEqual(before, `${TIMEOUT_MS}ms`, 'migrations and imports run under the server’s own setting');
      storage.setStatementTimeout!(TIMEOUT_MS);
      // The connection of the statement above, now idle in the pool, is the one handed out.
      assert.equal(storage.poolStats!().total, 1);
      assert.equal(await shown(storage), `${TIMEOUT_MS}ms`);
      await Promise.all(Array.from({ length: 3 }, async () => assert.equal(await shown(storage), `${TIMEOUT_MS}ms`)));
    } finally {
      await storage.close();
    }
  });

  test('a statement still running at the timeout is cancelled by the server: the transaction rolled back, the connection kept', async () => {
    const storage = openStorage(database.url);
    storage.setStatementTimeout!(TIMEOUT_MS);
    try {
      await sql`select 1`.execute(storage.db);
      const connections = storage.poolStats!().total;
      const failure = await storage.db
        .transaction()
        .execute(async (trx) => {
          await sql`insert into scratch values ('cancelled')`.execute(trx);
          await sql`select pg_sleep(5)`.execute(trx);
        })
        .then(
          () => assert.fail('the statement ran past the timeout'),
          (err: unknown) => err,
        );
      assert.equal((failure as { code?: string }).code, '57014', String(failure));
      assert.deepEqual((await sql`select id from scratch`.execute(storage.db)).rows, []);
      assert.equal(storage.poolStats!().total, connections);
    } finally {
      await storage.close();
    }
  });

  test('a statement whose answer never comes fails, and its connection is dropped, not reused mid-transaction', async () => {
    const relay = await stallableRelay(database.url);
    const storage = openStorage(relay.url);
    storage.setStatementTimeout!(TIMEOUT_MS);
    try {
      await sql`select 1`.execute(storage.db);
      assert.equal(storage.poolStats!().total, 1);
      const failure = await storage.db
        .transaction()
        .execute(async (trx) => {
          await sql`insert into scratch values ('unanswered')`.execute(trx);
          relay.stall(true);
          await sql`select 1`.execute(trx);
        })
        .then(
          () => assert.fail('a stalled server answered'),
          (err: unknown) => err,
        );
      assert.equal((failure as Error).message, 'Query read timeout');
      assert.equal(isDatabaseUnavailable(failure), true);
      // The rollback failed at once on the closed connection; the pool let go of it.
      assert.equal(storage.poolStats!().total, 0);
      relay.stall(false);
      // A new connection, outside that transaction: the row it wrote is not there.
      assert.deepEqual((await sql`select id from scratch`.execute(storage.db)).rows, []);
      assert.equal(await shown(storage), `${TIMEOUT_MS}ms`);
    } finally {
      relay.stall(false);
      await storage.close();
      await relay.close();
    }
  });
});
