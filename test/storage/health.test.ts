/**
 * storage/health.ts: which errors mean the database cannot be reached (answered 503), and the
 * watch that tells an outage once when it starts and once when it ends. The real outage, on a
 * PostgreSQL cluster of its own, is test/reliability/postgres-outage.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DatabaseHealth, isDatabaseUnavailable } from '../../src/storage/health.ts';

const coded = (code: string, message = 'x') => Object.assign(new Error(message), { code });

test('connection errors are told from errors of a statement', () => {
  for (const err of [
    coded('57P01', 'terminating connection due to administrator command'),
    coded('57P02'),
    coded('57P03', 'the database system is shutting down'),
    coded('08006'),
    coded('08P01'),
    coded('ECONNREFUSED'),
    coded('ECONNRESET'),
    new Error('Connection terminated unexpectedly'),
    new Error('Connection terminated due to connection timeout'),
    new Error('timeout exceeded when trying to connect'),
    new Error('Client has encountered a connection error and is not queryable'),
    // A server frozen or out of reach: no answer within the statement's wait.
    new Error('Query read timeout'),
    new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]),
    new Error('report worker failed: Connection terminated unexpectedly', { cause: coded('57P01') }),
  ]) {
    assert.equal(isDatabaseUnavailable(err), true, String(err));
  }
  for (const err of [
    coded('23505', 'duplicate key value violates unique constraint'),
    coded('42P01'),
    // The server answers: it cancelled a statement that ran too long (answered 503 all the same,
    // http/app.ts, but no outage).
    coded('57014', 'canceling statement due to statement timeout'),
    coded('SQLITE_BUSY'),
    coded('SQLITE_CONSTRAINT'),
    new Error('something else'),
    new Error('report worker failed: boom', { cause: new Error('boom') }),
    null,
    undefined,
    'ECONNREFUSED',
  ]) {
    assert.equal(isDatabaseUnavailable(err), false, String(err));
  }
});

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('an outage is told once when it starts and once when it ends; a lost connection of a database that answers is not', async () => {
  let answering = true;
  const health = new DatabaseHealth(async () => {
    if (!answering) throw coded('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432');
  });
  const changes: [boolean, string | undefined][] = [];
  health.onChange((available, reason) => changes.push([available, reason]));
  try {
    // The database answers: one connection was lost, nothing is told.
    assert.equal(health.suspect(coded('57P01')), true);
    await tick(10);
    assert.deepEqual(changes, []);
    assert.equal(health.available, true);
    // Not a connection error: not even asked.
    assert.equal(health.suspect(coded('23505')), false);

    answering = false;
    for (let i = 0; i < 20; i++) health.suspect(coded('57P01', 'terminating connection'));
    await tick(10);
    assert.deepEqual(changes, [[false, 'connect ECONNREFUSED 127.0.0.1:5432']]);
    assert.equal(health.available, false);
    for (let i = 0; i < 20; i++) health.suspect(coded('ECONNREFUSED'));
    await tick(600);
    assert.equal(changes.length, 1);

    answering = true;
    await tick(400);
    assert.deepEqual(changes, [
      [false, 'connect ECONNREFUSED 127.0.0.1:5432'],
      [true, undefined],
    ]);
    assert.equal(health.available, true);
  } finally {
    health.close();
  }
});
