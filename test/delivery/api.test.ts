/**
 * `/destinations` through HTTP on both databases (docs/delivery.md): create each kind, list,
 * read, change (POST and PATCH), delete with its deliveries; the webhook secret shown once and
 * the URL never shown whole; another user's destinations neither seen nor changed; the scope;
 * every bad field named; the cap of 20 per user.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { call, forEachDialect } from '../helper.ts';
import {
  ANN,
  ANN_NO_DESTINATIONS,
  BEN,
  type DeliveryWorld,
  type Receiver,
  attemptsOf,
  createDestination,
  failure,
  openWorld,
  startReceiver,
} from './receivers.ts';

forEachDialect('/destinations', (dialect) => {
  let w: DeliveryWorld;
  let slack: Receiver;
  let discord: Receiver;
  let webhook: Receiver;
  before(async () => {
    w = await openWorld(dialect);
    [slack, discord, webhook] = await Promise.all([
      startReceiver('slack'),
      startReceiver('discord'),
      startReceiver('webhook'),
    ]);
  });
  after(async () => {
    await Promise.all([slack, discord, webhook].map((r) => r?.close()));
    await w?.close();
  });

  const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown, key = ANN) =>
    call(w.app, method, url, { key, body });
  /** The secret part of every receiver's URL: no answer may hold it. */
  const assertNoSecretPath = (text: string) => {
    for (const r of [slack, discord, webhook])
      assert.ok(!text.includes(new URL(r.url).pathname), `an answer shows ${r.kind}'s whole URL: ${text}`);
    assert.ok(!text.includes('T0SECRETPATH'), text);
  };
  const destinationCount = async (id: string) =>
    Number(
      (
        await w.t.storage.db
          .selectFrom('deliveries')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('destination_id', '=', id)
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('each kind is created with its settings; only a webhook gets a whsec_ secret, once', async () => {
    const port = new URL(slack.url).port;
    const made = await send('POST', '/destinations', { kind: 'slack', url: slack.url, name: ' Team channel ' });
    assert.equal(made.status, 201, made.body);
    assert.equal(made.json.secret, undefined);
    assert.deepEqual(
      { ...made.json.destination, id: undefined, createdAt: undefined, updatedAt: undefined },
      {
        id: undefined,
        kind: 'slack',
        name: 'Team channel',
        url: `http://127.0.0.1:${port}/…6789`,
        levels: ['day'],
        updates: false,
        enabled: true,
        disabledReason: null,
        disabledAt: null,
        failingSince: null,
        lastDeliveredAt: null,
        createdAt: undefined,
        updatedAt: undefined,
      },
    );
    assert.match(made.json.destination.id, /^dst_/);
    assert.equal(made.json.destination.createdAt, new Date(w.now()).toISOString());
    assertNoSecretPath(made.body);

    w.advance(1000);
    const discordMade = await send('POST', '/destinations', {
      kind: 'discord',
      url: discord.url,
      levels: ['week', 'day', 'month'],
      updates: true,
    });
    assert.equal(discordMade.status, 201, discordMade.body);
    assert.equal(discordMade.json.secret, undefined);
    assert.deepEqual(discordMade.json.destination.levels, ['day', 'week', 'month'], 'levels in their natural order');
    assert.equal(discordMade.json.destination.updates, true);
    assertNoSecretPath(discordMade.body);

    w.advance(1000);
    const hook = await send('POST', '/destinations', { kind: 'webhook', url: webhook.url, levels: ['year'] });
    assert.equal(hook.status, 201, hook.body);
    assert.match(hook.json.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assertNoSecretPath(hook.body);

    // The secret is never shown again.
    const id = hook.json.destination.id;
    for (const res of [
      await send('GET', '/destinations'),
      await send('GET', `/destinations/${id}`),
      await send('PATCH', `/destinations/${id}`, { name: 'Hook' }),
      await send('POST', `/destinations/${id}`, { name: 'Hook' }),
    ]) {
      assert.equal(res.status, 200, res.body);
      assert.ok(!res.body.includes(hook.json.secret), res.body);
      assert.ok(!res.body.includes('whsec_'), res.body);
      assertNoSecretPath(res.body);
    }
  });

  test('the list holds the caller’s destinations in the order they were made', async () => {
    const res = await send('GET', '/destinations');
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.json.destinations.map((d: { kind: string; name: string | null }) => [d.kind, d.name]),
      [
        ['slack', 'Team channel'],
        ['discord', null],
        ['webhook', 'Hook'],
      ],
    );
    assertNoSecretPath(res.body);
    const bens = await send('GET', '/destinations', undefined, BEN);
    assert.deepEqual(bens.json, { success: true, destinations: [] });
  });

  test('POST and PATCH change the fields given and keep the others', async () => {
    const made = await createDestination(w, { kind: 'discord', url: discord.url }, { name: 'Before' });
    const id = made.id;
    w.advance(60_000);
    const patched = await send('PATCH', `/destinations/${id}`, { levels: ['month', 'week'], updates: true });
    assert.equal(patched.status, 200, patched.body);
    assert.deepEqual(
      {
        name: patched.json.destination.name,
        levels: patched.json.destination.levels,
        updates: patched.json.destination.updates,
        enabled: patched.json.destination.enabled,
        updatedAt: patched.json.destination.updatedAt,
        createdAt: patched.json.destination.createdAt,
      },
      {
        name: 'Before',
        levels: ['week', 'month'],
        updates: true,
        enabled: true,
        updatedAt: new Date(w.now()).toISOString(),
        createdAt: made.createdAt,
      },
    );
    const posted = await send('POST', `/destinations/${id}`, { name: null, enabled: false, url: slack.url });
    assert.equal(posted.status, 200, posted.body);
    assert.equal(posted.json.destination.name, null);
    assert.equal(posted.json.destination.enabled, false);
    assert.equal(posted.json.destination.disabledReason, null, 'paused by its user: no reason to show');
    assert.equal(posted.json.destination.kind, 'discord', 'the kind cannot change');
    assert.equal(posted.json.destination.url, `http://127.0.0.1:${new URL(slack.url).port}/…6789`);
    assert.deepEqual(posted.json.destination.levels, ['week', 'month']);
    assertNoSecretPath(posted.body);
    // What GET answers is what was saved.
    assert.deepEqual((await send('GET', `/destinations/${id}`)).json.destination, posted.json.destination);
    const again = await send('PATCH', `/destinations/${id}`, { enabled: true });
    assert.equal(again.json.destination.enabled, true);
    assert.equal((await send('DELETE', `/destinations/${id}`)).status, 200);
  });

  test('a deleted destination is gone with its deliveries: every route then answers 404', async () => {
    const made = await createDestination(w, { kind: 'slack', url: slack.url });
    const tested = await send('POST', `/destinations/${made.id}/test`);
    assert.equal(tested.status, 200, tested.body);
    assert.equal((await attemptsOf(w, made.id)).length, 1);
    assert.equal(await destinationCount(made.id), 1);

    const deleted = await send('DELETE', `/destinations/${made.id}`);
    assert.deepEqual([deleted.status, deleted.json], [200, { success: true }]);
    assert.equal(await destinationCount(made.id), 0, 'its deliveries are deleted with it');
    for (const [method, path, body] of [
      ['GET', `/destinations/${made.id}`],
      ['PATCH', `/destinations/${made.id}`, { name: 'x' }],
      ['POST', `/destinations/${made.id}`, { name: 'x' }],
      ['DELETE', `/destinations/${made.id}`],
      ['POST', `/destinations/${made.id}/test`],
      ['GET', `/destinations/${made.id}/deliveries`],
    ] as const) {
      const res = await send(method, path, body);
      assert.deepEqual([res.status, res.json], [404, failure('Destination not found')], `${method} ${path}`);
    }
    assert.ok(!(await send('GET', '/destinations')).json.destinations.some((d: { id: string }) => d.id === made.id));
  });

  test('no route shows or changes another user’s destination or its deliveries', async () => {
    const mine = await createDestination(w, { kind: 'slack', url: slack.url }, { name: 'Ann only' });
    assert.equal((await send('POST', `/destinations/${mine.id}/test`)).status, 200);
    const received = slack.requests.length;
    const before = (await send('GET', `/destinations/${mine.id}`)).json.destination;
    for (const [method, path, body] of [
      ['GET', `/destinations/${mine.id}`],
      ['PATCH', `/destinations/${mine.id}`, { name: 'Ben was here', enabled: false }],
      ['POST', `/destinations/${mine.id}`, { levels: ['year'] }],
      ['POST', `/destinations/${mine.id}/test`],
      ['GET', `/destinations/${mine.id}/deliveries`],
      ['DELETE', `/destinations/${mine.id}`],
    ] as const) {
      const res = await send(method, path, body, BEN);
      assert.deepEqual([res.status, res.json], [404, failure('Destination not found')], `${method} ${path}`);
    }
    assert.deepEqual((await send('GET', '/destinations', undefined, BEN)).json.destinations, []);
    assert.deepEqual((await send('GET', `/destinations/${mine.id}`)).json.destination, before, 'unchanged');
    assert.equal((await attemptsOf(w, mine.id)).length, 1, 'its deliveries are still there, only its own');
    assert.equal(slack.requests.length, received, 'nothing was sent for Ben');

    // Ann cannot reach Ben's either.
    const bens = await createDestination(w, { kind: 'discord', url: discord.url }, {}, BEN);
    assert.equal((await send('GET', `/destinations/${bens.id}`)).status, 404);
    assert.equal((await send('DELETE', `/destinations/${bens.id}`)).status, 404);
    assert.equal((await send('GET', `/destinations/${bens.id}`, undefined, BEN)).status, 200);
    assert.equal((await send('DELETE', `/destinations/${bens.id}`, undefined, BEN)).status, 200);
    assert.equal((await send('DELETE', `/destinations/${mine.id}`)).status, 200);
  });

  test('a chosen id is kept; one already in use, by anyone, is refused with 409 and changes nothing', async () => {
    const made = await send('POST', '/destinations', { id: 'dst_team_channel', kind: 'slack', url: slack.url });
    assert.equal(made.status, 201, made.body);
    assert.equal(made.json.destination.id, 'dst_team_channel');
    const taken = failure('Destination id already in use: "dst_team_channel"');
    const again = await send('POST', '/destinations', { id: 'dst_team_channel', kind: 'webhook', url: webhook.url });
    assert.deepEqual([again.status, again.json], [409, taken]);
    const bens = await send(
      'POST',
      '/destinations',
      { id: 'dst_team_channel', kind: 'discord', url: discord.url },
      BEN,
    );
    assert.deepEqual([bens.status, bens.json], [409, taken]);
    assert.deepEqual((await send('GET', '/destinations', undefined, BEN)).json.destinations, []);
    const kept = (await send('GET', '/destinations/dst_team_channel')).json.destination;
    assert.deepEqual([kept.kind, kept.createdAt], ['slack', made.json.destination.createdAt]);
    assert.equal((await send('DELETE', '/destinations/dst_team_channel')).status, 200);
  });

  test('a key without destinations:write is refused on every route', async () => {
    const made = await createDestination(w, { kind: 'slack', url: slack.url });
    const received = slack.requests.length;
    for (const [method, path, body] of [
      ['GET', '/destinations'],
      ['POST', '/destinations', { kind: 'slack', url: slack.url }],
      ['GET', `/destinations/${made.id}`],
      ['PATCH', `/destinations/${made.id}`, { name: 'x' }],
      ['POST', `/destinations/${made.id}`, { name: 'x' }],
      ['POST', `/destinations/${made.id}/test`],
      ['GET', `/destinations/${made.id}/deliveries`],
      ['DELETE', `/destinations/${made.id}`],
    ] as const) {
      const res = await send(method, path, body, ANN_NO_DESTINATIONS);
      assert.deepEqual(
        [res.status, res.json],
        [403, failure('API key missing required scope: destinations:write')],
        `${method} ${path}`,
      );
    }
    assert.equal(slack.requests.length, received);
    assert.equal((await send('GET', `/destinations/${made.id}`)).json.destination.name, null);
    assert.equal((await send('DELETE', `/destinations/${made.id}`)).status, 200);
  });

  test('each bad field is refused with a message naming it, and nothing is saved', async () => {
    const count = async () => (await send('GET', '/destinations')).json.destinations.length;
    const before = await count();
    const good = { kind: 'webhook', url: webhook.url };
    const levelsMessage = 'levels must be a non-empty list of distinct levels out of day, week, month, quarter, year';
    const cases: [object, string][] = [
      [{ ...good, kind: 'email' }, 'kind must be one of: slack, discord, webhook'],
      [{ url: webhook.url }, 'kind must be one of: slack, discord, webhook'],
      [{ kind: 'slack' }, 'url must be a URL of at most 2048 characters'],
      [{ ...good, url: '' }, 'url must be a URL of at most 2048 characters'],
      [
        { ...good, url: `https://hooks.example.com/${'x'.repeat(2048)}` },
        'url must be a URL of at most 2048 characters',
      ],
      [{ ...good, url: 'hooks.example.com/abc' }, 'url must be an absolute URL such as https://hooks.example.com/…'],
      [{ ...good, url: 'ftp://hooks.example.com/abc' }, 'url must be an http or https URL'],
      [{ ...good, url: 'http://user:pass@127.0.0.1:9/abc' }, 'url must not hold a user name or password'],
      [{ ...good, levels: [] }, levelsMessage],
      [{ ...good, levels: ['day', 'day'] }, levelsMessage],
      [{ ...good, levels: ['hour'] }, 'levels[0] must be one of: day, week, month, quarter, year'],
      [{ ...good, levels: ['day', 'Week'] }, 'levels[1] must be one of: day, week, month, quarter, year'],
      [{ ...good, levels: 'day' }, levelsMessage],
      [{ ...good, updates: 'yes' }, 'updates must be true or false'],
      [{ ...good, name: '   ' }, 'name must not be blank'],
      [{ ...good, name: '' }, 'name must be null or 1 to 100 characters'],
      [{ ...good, name: 'n'.repeat(101) }, 'name must be null or 1 to 100 characters'],
    ];
    for (const [body, message] of cases) {
      const res = await send('POST', '/destinations', body);
      assert.deepEqual([res.status, res.json], [400, failure(message)], JSON.stringify(body).slice(0, 200));
    }
    assert.equal(await count(), before, 'nothing was saved');

    const made = await createDestination(w, webhook, { name: 'Kept' });
    const updates: [object, string][] = [
      [{ levels: [] }, levelsMessage],
      [{ levels: ['week', 'week'] }, levelsMessage],
      [{ levels: ['decade'] }, 'levels[0] must be one of: day, week, month, quarter, year'],
      [{ updates: 1 }, 'updates must be true or false'],
      [{ enabled: 'no' }, 'enabled must be true or false'],
      [{ name: ' ' }, 'name must not be blank'],
      [{ url: 'mailto:ann@example.com' }, 'url must be an http or https URL'],
    ];
    for (const method of ['POST', 'PATCH'] as const) {
      for (const [body, message] of updates) {
        const res = await send(method, `/destinations/${made.id}`, body);
        assert.deepEqual([res.status, res.json], [400, failure(message)], `${method} ${JSON.stringify(body)}`);
      }
    }
    const kept = (await send('GET', `/destinations/${made.id}`)).json.destination;
    assert.deepEqual([kept.name, kept.levels, kept.updates, kept.enabled], ['Kept', ['day'], false, true]);

    for (const limit of ['0', '201', 'many', '1.5']) {
      const res = await send('GET', `/destinations/${made.id}/deliveries?limit=${limit}`);
      assert.deepEqual(
        [res.status, res.json],
        [400, failure('limit must be an integer between 1 and 200')],
        `limit=${limit}`,
      );
    }
    assert.equal((await send('GET', `/destinations/${made.id}/deliveries?limit=200`)).status, 200);
    assert.equal((await send('DELETE', `/destinations/${made.id}`)).status, 200);
  });

  test('the deliveries listing shows the newest attempts first, as many as the limit asks', async () => {
    const made = await createDestination(w, { kind: 'slack', url: slack.url });
    for (let i = 0; i < 3; i++) {
      w.advance(1000);
      assert.equal((await send('POST', `/destinations/${made.id}/test`)).status, 200);
    }
    const all = await send('GET', `/destinations/${made.id}/deliveries`);
    assert.deepEqual(
      all.json.attempts.map((a: { attemptedAt: string }) => a.attemptedAt),
      [w.now(), w.now() - 1000, w.now() - 2000].map((ms) => new Date(ms).toISOString()),
    );
    const two = await send('GET', `/destinations/${made.id}/deliveries?limit=2`);
    assert.deepEqual(two.json.attempts, all.json.attempts.slice(0, 2));
    assert.equal((await send('DELETE', `/destinations/${made.id}`)).status, 200);
  });

  test('a user has at most 20 destinations; another user is not held back by them', async () => {
    const existing = (await send('GET', '/destinations', undefined, BEN)).json.destinations.length;
    for (let i = existing; i < 20; i++) await createDestination(w, { kind: 'slack', url: slack.url }, {}, BEN);
    const refused = await send('POST', '/destinations', { kind: 'slack', url: slack.url }, BEN);
    assert.deepEqual(
      [refused.status, refused.json],
      [400, failure('A user has at most 20 destinations: delete one first')],
    );
    assert.equal((await send('GET', '/destinations', undefined, BEN)).json.destinations.length, 20);
    const anns = await send('POST', '/destinations', { kind: 'slack', url: slack.url });
    assert.equal(anns.status, 201, anns.body);
    // Deleting one makes room again.
    const first = (await send('GET', '/destinations', undefined, BEN)).json.destinations[0].id;
    assert.equal((await send('DELETE', `/destinations/${first}`, undefined, BEN)).status, 200);
    assert.equal((await send('POST', '/destinations', { kind: 'slack', url: slack.url }, BEN)).status, 201);
  });
});
