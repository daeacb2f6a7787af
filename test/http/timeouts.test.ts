/**
 * Slow and silent clients (docs/configuration.md, DAYBOOK_*_TIMEOUT_MS and
 * DAYBOOK_MAX_CONNECTIONS): cut off with 408 in the envelope, and a normal client keeps being
 * served while a thousand of them hold connections.
 */
import assert from 'node:assert/strict';
import { type Socket, connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { KEYS, type TestApp, createTestApp } from '../helper.ts';

describe('timeouts and the connection cap', () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp('sqlite', {
      config: { headersTimeoutMs: 400, requestTimeoutMs: 800, idleTimeoutMs: 300, maxConnections: 1_500 },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  after(() => t.close());

  /** Opens a connection, writes `first`, and resolves with all it received once it closes. */
  function held(first: string): { socket: Socket; closed: Promise<{ text: string; ms: number }> } {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    let text = '';
    socket.on('data', (d) => {
      text += d;
    });
    if (first) socket.write(first);
    const closed = new Promise<{ text: string; ms: number }>((resolve) =>
      socket.on('close', () => resolve({ text, ms: Date.now() - started })),
    );
    return { socket, closed };
  }
  const timedOut = (text: string) =>
    text.startsWith('HTTP/1.1 408 ') &&
    text.endsWith('{"success":false,"error":"Request Timeout","message":"Request Timeout"}');

  test('headers that never finish, and a body that never completes, get 408 in the envelope', async () => {
    const silentHeaders = held('GET /user HTTP/1.1\r\nHost: x\r\n');
    const stalledBody = held(
      `POST /search HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEYS.aliceAll}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{`,
    );
    const headers = await silentHeaders.closed;
    assert.ok(timedOut(headers.text), headers.text);
    assert.ok(headers.ms < 3_000, `${headers.ms} ms`);
    const body = await stalledBody.closed;
    assert.ok(timedOut(body.text), body.text);
    assert.ok(body.ms < 4_000, `${body.ms} ms`);
  });

  test('an idle connection is closed after the idle timeout', async () => {
    const idle = held(`GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`);
    const { text, ms } = await idle.closed;
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.ok(ms < 3_000, `${ms} ms`);
  });

  test('a normal client is served while 1,000 slow ones trickle their headers', async () => {
    // The test's first fetch() loads the HTTP client itself and the server checks the key for the
    // first time: on a loaded machine that alone took a second, which is not what is timed here.
    const warm = await fetch(`http://127.0.0.1:${port}/user`, { headers: { 'x-api-key': KEYS.aliceAll } });
    assert.equal(warm.status, 200);
    await warm.text();
    const slow = Array.from({ length: 1000 }, () => held('GET /user HTTP/1.1\r\n'));
    // Measured once they are all connected: what is timed is being served beside them.
    await Promise.all(slow.map(({ socket }) => new Promise((resolve) => socket.once('connect', resolve))));
    const trickle = setInterval(() => {
      for (const { socket } of slow) if (!socket.destroyed) socket.write('X-Slow: 1\r\n');
    }, 100);
    try {
      const timings: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = Date.now();
        const res = await fetch(`http://127.0.0.1:${port}/user`, { headers: { 'x-api-key': KEYS.aliceAll } });
        assert.equal(res.status, 200);
        await res.text();
        timings.push(Date.now() - started);
      }
      assert.ok(Math.max(...timings) < 1_000, timings.join(', '));
      const ends = await Promise.all(slow.map((s) => s.closed));
      assert.ok(
        ends.every((e) => timedOut(e.text) || e.text === ''),
        ends.find((e) => !timedOut(e.text))?.text,
      );
      assert.ok(ends.filter((e) => timedOut(e.text)).length > 900);
    } finally {
      clearInterval(trickle);
      for (const { socket } of slow) socket.destroy();
    }
  });

  test('past DAYBOOK_MAX_CONNECTIONS a new connection is closed at once; room frees as others go', async () => {
    const capped = await createTestApp('sqlite', { config: { maxConnections: 3 } });
    try {
      await capped.app.listen({ port: 0, host: '127.0.0.1' });
      const cappedPort = (capped.app.server.address() as { port: number }).port;
      const open = Array.from({ length: 3 }, () => connect(cappedPort, '127.0.0.1'));
      await Promise.all(open.map((socket) => new Promise((resolve) => socket.once('connect', resolve))));
      const extra = connect(cappedPort, '127.0.0.1');
      extra.on('error', () => {});
      extra.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      let answered = '';
      extra.on('data', (d) => {
        answered += d;
      });
      await new Promise((resolve) => extra.once('close', resolve));
      assert.equal(answered, '', 'closed without an answer');
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const res = await fetch(`http://127.0.0.1:${cappedPort}/healthz`);
      assert.equal(res.status, 200);
    } finally {
      await capped.close();
    }
  });
});
