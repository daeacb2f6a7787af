/**
 * WorkerPool.runIfRoom (src/lib/worker-pool.ts), which decides whether a small read goes to a
 * read worker or is done in place: it takes a thread that has started, holds no large job and
 * has fewer than `depth` jobs it has not answered, counted by the thread itself.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { WorkerPool } from '../../src/lib/worker-pool.ts';

type Job = { ms: number; tag: string };
const entry = new URL('./pool-worker.ts', import.meta.url);
describe('WorkerPool.runIfRoom', () => {
  let pool: WorkerPool<Job, string> | null = null;
  afterEach(async () => {
    await pool?.close();
    pool = null;
  });

  const job = (tag: string, ms = 0): Job => ({ ms, tag });

  test('before any thread serves, a small job is left to the caller, and the first call starts the threads', async () => {
    pool = new WorkerPool<Job, string>('test pool', entry, null, 1);
    assert.equal(pool.runIfRoom(job('a'), 4), null);
    // Started by that call: once the thread says it serves, it takes small jobs.
    await pool.whenStarted();
    assert.equal(await pool.runIfRoom(job('b'), 4), 'b');
  });

  test('a thread holding a large job takes no small one until it has answered it', async () => {
    pool = new WorkerPool<Job, string>('test pool', entry, null, 1);
    await pool.whenStarted();
    const large = pool.run(job('large', 300));
    assert.equal(pool.runIfRoom(job('small'), 4), null);
    assert.equal(await large, 'large');
    assert.equal(await pool.runIfRoom(job('small'), 4), 'small');
  });

  test('at most `depth` jobs a thread has not answered; the least loaded thread is chosen', async () => {
    pool = new WorkerPool<Job, string>('test pool', entry, null, 2);
    await pool.whenStarted();
    const taken = [1, 2, 3, 4].map((n) => pool!.runIfRoom(job(`s${n}`, 200), 2));
    assert.ok(taken.every((p) => p !== null));
    assert.equal(pool.runIfRoom(job('s5', 200), 2), null);
    assert.deepEqual(await Promise.all(taken), ['s1', 's2', 's3', 's4']);
    assert.equal(await pool.runIfRoom(job('s6'), 2), 's6');
  });

  test('small jobs go to the first `threads` threads only; large jobs to any', async () => {
    pool = new WorkerPool<Job, string>('test pool', entry, null, 2);
    await pool.whenStarted();
    const taken = [1, 2].map((n) => pool!.runIfRoom(job(`s${n}`, 200), 2, 1));
    assert.ok(taken.every((p) => p !== null));
    // The second thread is idle, but not one of the first 1.
    assert.equal(pool.runIfRoom(job('s3', 200), 2, 1), null);
    // A large job goes to the least busy thread, the second: the first still takes small jobs.
    const large = pool.run(job('large', 400));
    assert.deepEqual(await Promise.all(taken), ['s1', 's2']);
    assert.equal(await pool.runIfRoom(job('s4'), 2, 1), 's4');
    assert.equal(await large, 'large');
  });

  test('a job the thread has answered no longer counts, even before this thread has taken in the answer', async () => {
    pool = new WorkerPool<Job, string>('test pool', entry, null, 1);
    await pool.whenStarted();
    const first = pool.runIfRoom(job('first'), 1);
    assert.ok(first);
    // Busy for a while without giving the event loop a turn: the answer arrives meanwhile but is
    // not taken in yet. The thread's own count already says it is free.
    const until = Date.now() + 300;
    while (Date.now() < until) {}
    const second = pool.runIfRoom(job('second'), 1);
    assert.ok(second, 'the answered job still counted');
    assert.deepEqual(await Promise.all([first, second]), ['first', 'second']);
  });
});
