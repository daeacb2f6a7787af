/**
 * The server holds one of Node's tick objects from start-up (src/lib/tick-shape.ts), so that
 * the shape V8's optimized `process.nextTick` relies on outlives every garbage collection. What
 * that is worth is measured by `npm run bench -- overhead` (docs/performance.md); here, that a
 * real tick object is held, and that holding it leaves no async hook behind.
 */
import assert from 'node:assert/strict';
import { executionAsyncId } from 'node:async_hooks';
import { test } from 'node:test';
import { heldTickObject, keepTickObjectShape } from '../../src/lib/tick-shape.ts';

// `npm run test:fast` runs every file in one process, where another test may have started a
// server first; `npm test` runs this file in a process of its own, where nothing is held yet.
test('startServer holds one before it serves (nothing held before)', async (t) => {
  if (heldTickObject() !== undefined) {
    t.skip('a server of another test file in this process holds one already');
    return;
  }
  assert.equal(heldTickObject(), undefined);
  const { startServer } = await import('../../src/server.ts');
  const { loadConfig } = await import('../../src/config.ts');
  const server = await startServer(
    { ...loadConfig({ DAYBOOK_DATABASE_URL: 'sqlite::memory:', DAYBOOK_DEMO: 'off' }), port: 0, host: '127.0.0.1' },
    { env: { DAYBOOK_DEMO: 'off' }, log: () => {} },
  );
  try {
    assert.ok(heldTickObject());
    const res = await fetch(`${server.url}/healthz`);
    assert.equal(res.status, 200);
  } finally {
    await server.close();
  }
});

test('the held object is a tick object; asking again keeps it; no hook stays enabled', async () => {
  await keepTickObjectShape();
  const held = heldTickObject() as Record<string | symbol, unknown> | undefined;
  assert.ok(held, 'no tick object held');
  // Node's tick object: its callback, its arguments and two internal async ids under symbols.
  assert.equal(typeof held.callback, 'function');
  assert.ok('args' in held);
  // (An async context store may have added a symbol of its own after them.)
  const ids = Object.getOwnPropertySymbols(held)
    .slice(0, 2)
    .map((s) => held[s]);
  assert.deepEqual(
    ids.map((id) => typeof id),
    ['number', 'number'],
  );
  // Calling it again keeps the first.
  await keepTickObjectShape();
  assert.equal(heldTickObject(), held);
  // The hook was disabled: new ticks after it are not captured, and async ids go on as usual.
  await new Promise((resolve) => process.nextTick(resolve));
  assert.equal(heldTickObject(), held);
  assert.ok(executionAsyncId() >= 0);
});
