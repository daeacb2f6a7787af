/**
 * docs/api.md, "Every request": a key never appears in the logs, wherever the caller put it; a client hanging
 * up is not logged as a server error.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import { DEFAULT_NOW, KEYS, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';

forEachDialect('logs', (dialect) => {
  let t: TestApp;
  let app: App;
  const lines: string[] = [];

  before(async () => {
    t = await createTestApp(dialect, { config: { keyCacheMs: 2000 }, log: { level: 'info', lines } });
    app = t.app;
  });
  after(() => t.close());

  test('no key reaches the log, from the header, the query string or a failed attempt', async () => {
    const unknownKey = 'dbk_never_issued_0123456789abcdef';
    assert.equal((await call(app, 'GET', '/user', { key: KEYS.aliceAll })).status, 200);
    assert.equal((await call(app, 'GET', '/user', { key: unknownKey })).status, 401);
    assert.equal((await call(app, 'GET', '/user', { key: KEYS.daveRevoked })).status, 401);
    assert.equal((await call(app, 'GET', `/user?api_key=${KEYS.bob}`)).status, 401);
    assert.equal(
      (await call(app, 'GET', '/user', { headers: { authorization: `Bearer ${KEYS.aliceReadOnly}` } })).status,
      401,
    );
    assert.equal(
      (await call(app, 'POST', '/user', { key: KEYS.carolFree, body: { key: KEYS.carolFree } })).status,
      405,
    );

    // The log did record these requests, so the absence of keys below means something.
    const requests = lines
      .map((line) => JSON.parse(line) as { req?: { path?: string } })
      .filter((l) => l.req?.path === '/user');
    assert.ok(requests.length >= 6, lines.join('\n'));
    const log = lines.join('\n');
    for (const key of [...Object.values(KEYS), unknownKey]) assert.ok(!log.includes(key), `${key} appears in the log`);
  });
  test('at info, a request is logged coming in and completed, under one request id', async () => {
    const before = lines.length;
    assert.equal((await call(app, 'GET', '/user', { key: KEYS.aliceAll })).status, 200);
    type Line = {
      level: number;
      msg: string;
      reqId?: string;
      req?: { method?: string; path?: string };
      res?: { statusCode?: number };
      responseTime?: number;
    };
    const written = lines.slice(before).map((line) => JSON.parse(line) as Line);
    const incoming = written.find((l) => l.msg === 'incoming request');
    const completed = written.find((l) => l.msg === 'request completed');
    assert.ok(incoming && completed, lines.slice(before).join('\n'));
    assert.equal(incoming.level, 30);
    assert.deepEqual([incoming.req?.method, incoming.req?.path], ['GET', '/user']);
    assert.equal(completed.level, 30);
    assert.equal(completed.res?.statusCode, 200);
    assert.equal(typeof completed.responseTime, 'number');
    assert.ok(incoming.reqId !== undefined && incoming.reqId === completed.reqId, lines.slice(before).join('\n'));
  });

  test('a key-shaped value anywhere in a path or a failure is not logged', async () => {
    const pasted = 'dbk_pasted_into_the_path_0123456789';
    const before = lines.length;
    assert.equal((await call(app, 'GET', `/projects/${pasted}`, { key: KEYS.aliceAll })).status, 404);
    assert.equal((await call(app, 'GET', `/${pasted}/user`)).status, 404);
    assert.equal(
      (await call(app, 'POST', `/tasks/${pasted}`, { key: KEYS.aliceAll, body: { title: 'x' } })).status,
      403,
    );
    const written = lines.slice(before);
    assert.ok(
      written.some((line) => line.includes('dbk_[redacted]')),
      written.join('\n'),
    );
    assert.ok(!written.join('\n').includes(pasted), written.join('\n'));
  });

  test('a client that hangs up before its report is sent is an info line, not an error', async () => {
    const before = lines.length;
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const body = JSON.stringify({
      dateRange: { from: DEFAULT_NOW - 89 * 86_400_000, to: DEFAULT_NOW },
      aggregationLevel: 'activity',
    });
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    socket.end(
      `POST /report HTTP/1.1\r\nHost: x\r\nX-API-Key: ${KEYS.aliceAll}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    socket.destroy();
    // The server finishes the request it was given and notes how it ended.
    const ended = () =>
      lines.slice(before).map((line) => JSON.parse(line) as { level: number; msg: string; req?: { path?: string } });
    for (
      let i = 0;
      i < 100 && !ended().some((l) => l.msg === 'request completed' || l.msg.startsWith('client closed'));
      i++
    ) {
      await new Promise((r) => setTimeout(r, 20));
    }
    const logged = ended();
    assert.ok(
      logged.some((l) => l.req?.path === '/report'),
      lines.slice(before).join('\n'),
    );
    assert.ok(
      logged.some((l) => l.msg === 'request completed' || l.msg.startsWith('client closed')),
      lines.slice(before).join('\n'),
    );
    assert.deepEqual(
      logged.filter((l) => l.level >= 50),
      [],
    );
  });
});
