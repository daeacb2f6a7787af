/**
 * The server holds one of Node's tick objects from start-up (src/lib/tick-shape.ts), so that
 * the shape V8's optimized `process.nextTick` relies on outlives every garbage collection. What
 * that is worth is measured by `npm run bench -- overhead` (docs/performance.md); here, that a
 * real tick object is held, and that holding it leaves no async hook behind.
 */
import assert from 'node:assert/strict';
import { executionAsyncId } from 'node:async_hooks';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { heldTickObject, keepTickObjectShape } from '../../src/lib/tick-shape.ts';

const run = promisify(execFile);

/**
 * In a Node process of its own: the test runner runs many files in one process, where another
 * test may have started a server (and so held a tick object) first.
 */
test('startServer holds one before it serves (nothing held before)', async () => {
  const module = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
  const code = `
    import { heldTickObject } from ${module('../../src/lib/tick-shape.ts')};
    import { startServer } from ${module('../../src/server.ts')};
    import { loadConfig } from ${module('../../src/config.ts')};
    const before = heldTickObject() !== undefined;
    const server = await startServer(
      { ...loadConfig({ DAYBOOK_DATABASE_URL: 'sqlite::memory:', DAYBOOK_DEMO: 'off' }), port: 0, host: '127.0.0.1' },
      { env: { DAYBOOK_DEMO: 'off' }, log: () => {} },
    );
    const after = heldTickObject() !== undefined;
    const status = (await fetch(server.url + '/healthz')).status;
    await server.close();
    console.log('held: ' + JSON.stringify({ before, after, status }));
  `;
  const { stdout } = await run(process.execPath, ['--input-type=module', '--eval', code]);
  // The server's own log lines come on the same stream.
  const line = stdout.split('\n').find((text) => text.startsWith('held: '));
  assert.ok(line, stdout);
  assert.deepEqual(JSON.parse(line.slice('held: '.length)), { before: false, after: true, status: 200 });
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
