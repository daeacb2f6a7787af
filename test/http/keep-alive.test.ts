/**
 * A body refused once it was read whole (malformed JSON, a NUL, another charset or media type)
 * is answered without closing the connection: requests pipelined behind it are answered too.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { KEYS, type TestApp, createTestApp, forEachDialect } from '../helper.ts';

forEachDialect('keep-alive after a refused body', (dialect) => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await createTestApp(dialect);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as { port: number }).port;
  });
  after(() => t.close());

  /** Sends `raw` on one connection and collects what comes back until `answers` responses arrived. */
  async function exchange(raw: string, answers: number): Promise<string[]> {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => {
      out += d;
    });
    socket.write(raw);
    for (let i = 0; i < 100 && (out.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0) < answers; i++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    // An answer's body ends where the next status line begins.
    return out.split(/(?=HTTP\/1\.1 \d{3} )/);
  }

  const post = (path: string, type: string, body: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEYS.aliceAll}\r\ncontent-type: ${type}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const getUser = `GET /user HTTP/1.1\r\nHost: x\r\nx-api-key: ${KEYS.aliceAll}\r\n\r\n`;

  test('the 400 or 415 keeps the connection, and the next request is answered', async () => {
    const refused: [string, string, string][] = [
      ['application/json', '{"query": ', 'HTTP/1.1 400'],
      ['application/json', '{"query": "a\\u0000b"}', 'HTTP/1.1 400'],
      ['application/json', '{"query": "a\\ud800b"}', 'HTTP/1.1 400'],
      ['application/json; charset=latin1', '{"query": "x"}', 'HTTP/1.1 415'],
      ['text/plain', 'query', 'HTTP/1.1 415'],
    ];
    for (const [type, body, status] of refused) {
      const [first, second] = await exchange(post('/search', type, body) + getUser, 2);
      assert.ok(first?.startsWith(status), `${type} ${body}: ${first}`);
      assert.doesNotMatch(first!, /^connection: close/im, first);
      assert.match(second ?? '', /^HTTP\/1\.1 200/, `${type} ${body}: the request behind it: ${second}`);
    }
  });
});
