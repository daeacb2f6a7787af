/**
 * The write lock the server's thread and the write thread share (storage/thread-write-lock.ts),
 * across two real threads: one holder at a time, a waiting side is handed the lock when the
 * other lets go (the two take turns), and a thread that ended holds it no longer.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { SERVER_THREAD, sharedLockMemory, ThreadWriteLock, WRITE_THREAD } from '../../src/storage/thread-write-lock.ts';

const lockModule = new URL('../../src/storage/thread-write-lock.ts', import.meta.url).href;

/**
 * A thread that, told `take`, takes the lock as the write thread and says `holding`; told `free`,
 * lets it go and says `freed`; told `end`, ends (holding it or not).
 */
function otherThread(memory: SharedArrayBuffer) {
  const worker = new Worker(
    `const { parentPort, workerData } = require('node:worker_threads');
     import(workerData.module).then(({ ThreadWriteLock, WRITE_THREAD }) => {
       const lock = new ThreadWriteLock(workerData.memory, WRITE_THREAD);
       parentPort.on('message', async (m) => {
         if (m === 'take') { await lock.acquire(); parentPort.postMessage('holding'); }
         if (m === 'free') { lock.release(); parentPort.postMessage('freed'); }
         if (m === 'end') process.exit(0);
       });
       parentPort.postMessage('ready');
     });`,
    { eval: true, workerData: { memory, module: lockModule } },
  );
  const said: string[] = [];
  const waiters: { word: string; resolve: () => void }[] = [];
  worker.on('message', (word: string) => {
    said.push(word);
    for (const w of waiters.filter((w) => w.word === word)) w.resolve();
  });
  return {
    said,
    tell: (word: string) => worker.postMessage(word),
    hears: (word: string) =>
      said.includes(word) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ word, resolve })),
    ended: new Promise<void>((resolve) => worker.once('exit', () => resolve())),
    stop: () => worker.terminate(),
  };
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('one side holds the lock at a time, and a side that waits is handed it', async () => {
  const memory = sharedLockMemory();
  const server = new ThreadWriteLock(memory, SERVER_THREAD);
  const other = otherThread(memory);
  try {
    await other.hears('ready');
    await server.acquire();
    assert.equal(server.held, true);
    other.tell('take');
    await pause(100);
    assert.deepEqual(other.said, ['ready'], 'the other thread waits while the server thread holds the lock');
    // Let go while the other waits: it is handed the lock, and a new try of this side waits.
    let mine = false;
    server.release();
    const again = server.acquire().then(() => {
      mine = true;
    });
    await other.hears('holding');
    assert.equal(server.held, false);
    await pause(50);
    assert.equal(mine, false, 'the server thread waits while the other holds the lock');
    other.tell('free');
    await again;
    assert.equal(server.held, true);
    server.release();
  } finally {
    await other.stop();
  }
});

test('a thread that ended while holding the lock holds it no longer', async () => {
  const memory = sharedLockMemory();
  const server = new ThreadWriteLock(memory, SERVER_THREAD);
  const other = otherThread(memory);
  await other.hears('ready');
  other.tell('take');
  await other.hears('holding');
  let mine = false;
  const waiting = server.acquire().then(() => {
    mine = true;
  });
  other.tell('end');
  await other.ended;
  await pause(50);
  assert.equal(mine, false, 'not let go by the end of the thread alone');
  server.forsake(WRITE_THREAD);
  await waiting;
  assert.equal(server.held, true);
  server.release();
});
