/**
 * Delivery safety on both databases (docs/delivery.md, "Safety"): unless
 * DAYBOOK_DELIVERY_ALLOW_PRIVATE, a destination URL must be https, hold no credentials and reach
 * only public addresses — as written, as its name resolves when it is saved, and again when each
 * attempt connects; and neither a webhook's secret nor a URL's secret path ever reaches the log.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { App } from '../../src/http/types.ts';
import { DeliveryWorker } from '../../src/services/delivery/worker.ts';
import { generateSummaries } from '../../src/services/summaries/generate.ts';
import { type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';
import {
  ANN,
  type DeliveryWorld,
  MONDAY,
  type Receiver,
  SECOND,
  attemptsOf,
  createDestination,
  datasetFile,
  failure,
  openWorld,
  startReceiver,
} from './receivers.ts';

/** The refusal of an address written in the URL (a name is told with what it resolves to). */
const refusal = (address: string) => `url must not point to a private, loopback or link-local address (${address})`;

forEachDialect('destination URLs without DAYBOOK_DELIVERY_ALLOW_PRIVATE', (dialect) => {
  let w: DeliveryWorld;
  before(async () => {
    w = await openWorld(dialect, { config: { deliveryAllowPrivate: false } });
  });
  after(() => w?.close());

  test('private, loopback, link-local and other non-public addresses are refused, naming url', async () => {
    const cases: [string, string | RegExp][] = [
      ['https://127.0.0.1/hook', refusal('127.0.0.1')],
      ['https://127.1.2.3:8443/hook', refusal('127.1.2.3')],
      ['https://10.0.0.1/hook', refusal('10.0.0.1')],
      ['https://192.168.1.1/hook', refusal('192.168.1.1')],
      ['https://172.16.0.1/hook', refusal('172.16.0.1')],
      ['https://169.254.169.254/latest/meta-data', refusal('169.254.169.254')],
      ['https://[::1]/hook', refusal('::1')],
      ['https://[::ffff:127.0.0.1]/hook', refusal('::ffff:7f00:1')],
      ['https://[fd00::1]/hook', refusal('fd00::1')],
      ['https://[fe80::1]/hook', refusal('fe80::1')],
      ['https://0.0.0.0/hook', refusal('0.0.0.0')],
      ['https://100.64.0.1/hook', refusal('100.64.0.1')],
      // The same loopback address written as one number: URL parsing makes it 127.0.0.1.
      ['https://2130706433/hook', refusal('127.0.0.1')],
      // A name is judged by what it resolves to.
      [
        'https://localhost/hook',
        /^url must not point to a private, loopback or link-local address \(localhost is (127\.0\.0\.1|::1)\)$/,
      ],
      ['http://hooks.example.com/services/T0/B0/abc', 'url must be an https URL'],
      ['http://127.0.0.1/hook', 'url must be an https URL'],
      ['https://user:pass@hooks.example.com/hook', 'url must not hold a user name or password'],
      ['https://token@hooks.example.com/hook', 'url must not hold a user name or password'],
    ];
    for (const [url, message] of cases) {
      for (const kind of ['webhook', 'slack']) {
        const res = await call(w.app, 'POST', '/destinations', { key: ANN, body: { kind, url } });
        assert.equal(res.status, 400, `${url}: ${res.body}`);
        if (typeof message === 'string') assert.deepEqual(res.json, failure(message), url);
        else assert.match(res.json.message, message, url);
      }
    }
    assert.deepEqual((await call(w.app, 'GET', '/destinations', { key: ANN })).json.destinations, []);

    // A public address is accepted, and a change to a private one is refused the same way.
    const made = await createDestination(w, { kind: 'webhook', url: 'https://93.184.215.14/hooks/daybook' });
    for (const method of ['PATCH', 'POST'] as const) {
      const res = await call(w.app, method, `/destinations/${made.id}`, {
        key: ANN,
        body: { url: 'https://169.254.169.254/latest' },
      });
      assert.deepEqual([res.status, res.json], [400, failure(refusal('169.254.169.254'))]);
    }
    assert.equal(
      (await call(w.app, 'GET', `/destinations/${made.id}`, { key: ANN })).json.destination.url,
      'https://93.184.215.14/…book',
    );
  });
});

forEachDialect('deliveries to addresses no longer allowed', (dialect) => {
  let w: DeliveryWorld;
  let slack: Receiver;
  before(async () => {
    w = await openWorld(dialect);
    slack = await startReceiver('slack');
  });
  after(async () => {
    await slack?.close();
    await w?.close();
  });

  test('a destination saved while private addresses were allowed is refused at send time, and nothing reaches it', async () => {
    const literal = await createDestination(w, slack, { levels: ['week'] });
    const byName = await createDestination(
      w,
      { kind: 'slack', url: slack.url.replace('127.0.0.1', 'localhost') },
      { levels: ['week'] },
    );
    await w.generate();
    assert.equal(await w.deliver({ allowPrivate: false }), 2);
    assert.equal(slack.requests.length, 0, 'no request reached the receiver');

    const refused = (await attemptsOf(w, literal.id)).at(-1);
    assert.deepEqual(
      [refused.outcome, refused.statusCode, refused.error, refused.deliveryStatus, refused.nextAttemptAt],
      ['refused', null, refusal('127.0.0.1'), 'pending', new Date(MONDAY + 5 * SECOND).toISOString()],
    );
    const resolved = (await attemptsOf(w, byName.id)).at(-1);
    assert.equal(resolved.outcome, 'refused');
    assert.match(
      resolved.error,
      /^url must not point to a private, loopback or link-local address \(localhost is (127\.0\.0\.1|::1)\)$/,
    );
    assert.deepEqual(
      w.attempts.map((a) => a.outcome),
      ['refused', 'refused'],
    );

    // Allowed again, the same deliveries go through.
    w.advance(5 * SECOND);
    assert.equal(await w.deliver({ allowPrivate: true }), 2);
    assert.equal(slack.requests.length, 2);
  });
});

forEachDialect('delivery logs', (dialect) => {
  let t: TestApp;
  let app: App;
  let receivers: Receiver[];
  const lines: string[] = [];
  const now = MONDAY;

  before(async () => {
    t = await createTestApp(dialect, {
      dataset: datasetFile(),
      now,
      config: { keyCacheMs: 2000, deliveryAllowPrivate: true, deliveryTimeoutMs: 1000 },
      log: { level: 'trace', lines },
    });
    app = t.app;
    receivers = await Promise.all([startReceiver('webhook'), startReceiver('slack')]);
  });
  after(async () => {
    await Promise.all((receivers ?? []).map((r) => r.close()));
    await t?.close();
  });

  test('neither a webhook secret nor a destination URL’s path is ever logged', async () => {
    const [webhook, slack] = receivers as [Receiver, Receiver];
    const hook = await call(app, 'POST', '/destinations', {
      key: ANN,
      body: { kind: 'webhook', url: webhook.url, levels: ['day', 'week'] },
    });
    assert.equal(hook.status, 201);
    const secret = hook.json.secret as string;
    const chat = await call(app, 'POST', '/destinations', { key: ANN, body: { kind: 'slack', url: slack.url } });
    assert.equal(chat.status, 201);
    webhook.secret = secret;
    slack.script({ status: 500, body: `echoing ${slack.url}` });
    assert.equal((await call(app, 'POST', `/destinations/${hook.json.destination.id}/test`, { key: ANN })).status, 200);
    assert.equal((await call(app, 'POST', `/destinations/${chat.json.destination.id}/test`, { key: ANN })).status, 200);
    // A URL refused at creation is not logged either.
    const secretish = 'ftp://hooks.example.com/services/T0SECRETPATHREFUSED';
    assert.equal(
      (await call(app, 'POST', '/destinations', { key: ANN, body: { kind: 'slack', url: secretish } })).status,
      400,
    );

    await generateSummaries(t.storage, { now });
    webhook.script({ status: 503, body: secret }, { hang: true });
    const worker = new DeliveryWorker({
      storage: t.storage,
      now: () => now,
      timeoutMs: 1000,
      allowPrivate: true,
      pollMs: 0,
      concurrency: 4,
      log: app.log,
    });
    assert.ok((await worker.runOnce()) >= 4);
    await worker.stop();
    for (const id of [hook.json.destination.id, chat.json.destination.id]) {
      assert.equal((await call(app, 'GET', `/destinations/${id}/deliveries`, { key: ANN })).status, 200);
      assert.equal(
        (await call(app, 'PATCH', `/destinations/${id}`, { key: ANN, body: { url: webhook.url } })).status,
        200,
      );
      assert.equal((await call(app, 'DELETE', `/destinations/${id}`, { key: ANN })).status, 200);
    }

    // The log did record these requests and the failed attempts, so what is absent below means something.
    const parsed = lines.map((line) => JSON.parse(line) as { msg?: string; req?: { path?: string } });
    assert.ok(parsed.filter((l) => l.req?.path?.startsWith('/destinations')).length >= 10, lines.join('\n'));
    assert.ok(parsed.filter((l) => l.msg === 'delivery attempt failed').length >= 2, lines.join('\n'));
    const log = lines.join('\n');
    assert.ok(!log.includes(secret), 'the webhook secret appears in the log');
    assert.ok(!log.includes(secret.slice('whsec_'.length, 30)), 'part of the webhook secret appears in the log');
    assert.ok(!log.includes('T0SECRETPATH'), `a URL's path appears in the log:\n${log}`);
  });
});
