/**
 * POST /activities and DELETE /activities/:id (decisions §7.1–§7.3) through HTTP on both
 * databases: every rule and message, upserts, isolation from other users, bad input that stores
 * nothing, and the write showing at once in /report, /search and usedAt.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_NOW, type TestApp, type TestDatabase, call, forEachDialect } from '../helper.ts';
import { appOnDataset, ALICE, ALICE_NO_WRITE, BOB, CAROL_FREE, world } from './world.ts';

const at = (iso: string) => iso;
const item = (extra: Record<string, unknown> = {}) => ({
  start: at('2026-11-21T09:00:00Z'),
  durationMinutes: 30,
  headline: 'Wrote the release notes',
  ...extra,
});

forEachDialect('POST /activities and DELETE /activities/:id', (dialect) => {
  let database: TestDatabase;
  let t: TestApp;
  appOnDataset(dialect, 'rec', world, (made) => {
    ({ database, t } = made);
  });

  const post = (body: unknown, key = ALICE) => call(t.app, 'POST', '/activities', { key, body });
  const failure = (status: number, error: string) => [status, { success: false, error, message: error }];
  const count = async () =>
    Number(
      (
        await database.storage.db
          .selectFrom('activities')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const dayRow = async (date: string) => {
    const res = await call(t.app, 'POST', '/report', {
      key: ALICE,
      body: {
        dateRange: { from: Date.parse(`${date}T00:00:00+01:00`), to: Date.parse(`${date}T23:59:59+01:00`) },
        aggregationLevel: 'day',
      },
    });
    assert.equal(res.status, 200);
    return res.json.rows.find((r: { id: string }) => r.id === `day:${date}`);
  };

  test('records, answers ids in order, and shows at once in /report, /search and usedAt', async () => {
    const before = await dayRow('2026-11-21');
    assert.equal(before, undefined);
    const res = await post({
      activities: [
        item({ id: 'a_rec_1', headline: 'Zanzibarish planning', category: 'Focus work', taskId: 'k_alice' }),
        item({
          start: Date.parse('2026-11-21T10:00:00Z'),
          durationMinutes: 15,
          category: 'c_meet',
          projectId: 'p_team',
        }),
      ],
    });
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.success, true);
    assert.equal(res.json.created, 2);
    assert.equal(res.json.updated, 0);
    assert.equal(res.json.ids.length, 2);
    assert.equal(res.json.ids[0], 'a_rec_1');
    assert.match(res.json.ids[1], /^[A-Za-z0-9_.:-]+$/);

    const day = await dayRow('2026-11-21');
    assert.equal(day.duration, 45);
    assert.deepEqual(day.categories, [
      { name: 'Focus work', minutes: 30 },
      { name: 'Meetings', minutes: 15 },
    ]);
    assert.deepEqual(day.projects, [{ name: 'Team project', minutes: 45 }]);

    const found = await call(t.app, 'POST', '/search', { key: ALICE, body: { query: 'zanzibarish' } });
    assert.deepEqual(
      found.json.results.map((r: { id: string }) => r.id),
      ['a_rec_1'],
    );

    const project = await call(t.app, 'GET', '/projects/p_team', { key: ALICE });
    assert.equal(project.json.project.usedAt, '2026-11-21T10:00:00.000Z');
  });

  test('sending the same batch twice changes nothing: created, then updated', async () => {
    const batch = {
      activities: [
        item({ id: 'a_twice_1', start: '2026-11-19T08:00:00+01:00' }),
        item({ id: 'a_twice_2', start: '2026-11-19T09:00:00+01:00' }),
      ],
    };
    const first = await post(batch);
    assert.deepEqual([first.json.created, first.json.updated], [2, 0]);
    const rows = await count();
    const day = await dayRow('2026-11-19');
    const second = await post(batch);
    assert.deepEqual(second.json, { success: true, created: 0, updated: 2, ids: ['a_twice_1', 'a_twice_2'] });
    assert.equal(await count(), rows);
    assert.deepEqual(await dayRow('2026-11-19'), day);
  });

  test('an upsert replaces the activity: fields left out take their defaults, the old day empties', async () => {
    await post({ activities: [item({ id: 'a_move', start: '2026-11-18T09:00:00Z', category: 'c_focus' })] });
    assert.equal((await dayRow('2026-11-18')).duration, 30);
    const res = await post({ activities: [{ id: 'a_move', start: '2026-11-17T09:00:00Z', headline: 'Moved' }] });
    assert.deepEqual([res.json.created, res.json.updated], [0, 1]);
    assert.equal(await dayRow('2026-11-18'), undefined);
    const moved = await dayRow('2026-11-17');
    assert.equal(moved.duration, 5);
    assert.deepEqual(moved.categories, []);
  });

  test("DELETE removes the caller's activity at once; anything else is 404 Activity not found", async () => {
    await post({ activities: [item({ id: 'a_gone', start: '2026-11-16T09:00:00Z', headline: 'Quuxified records' })] });
    assert.equal((await dayRow('2026-11-16')).duration, 30);
    const res = await call(t.app, 'DELETE', '/activities/a_gone', { key: ALICE });
    assert.deepEqual([res.status, res.json], [200, { success: true }]);
    assert.equal(await dayRow('2026-11-16'), undefined);
    const found = await call(t.app, 'POST', '/search', { key: ALICE, body: { query: 'quuxified' } });
    assert.deepEqual(found.json.results, []);
    const again = await call(t.app, 'DELETE', '/activities/a_gone', { key: ALICE });
    assert.deepEqual([again.status, again.json], failure(404, 'Activity not found'));
    const bobs = await call(t.app, 'DELETE', '/activities/a_bob', { key: ALICE });
    assert.deepEqual([bobs.status, bobs.json], failure(404, 'Activity not found'));
    const stillThere = await database.storage.db
      .selectFrom('activities')
      .select('id')
      .where('id', '=', 'a_bob')
      .execute();
    assert.equal(stillThere.length, 1);
  });

  test('scope activity:write is needed and works on every plan', async () => {
    const without = await post({ activities: [item()] }, ALICE_NO_WRITE);
    assert.deepEqual([without.status, without.json], failure(403, 'API key missing required scope: activity:write'));
    const del = await call(t.app, 'DELETE', '/activities/a_rec_1', { key: ALICE_NO_WRITE });
    assert.deepEqual([del.status, del.json], failure(403, 'API key missing required scope: activity:write'));
    const free = await post({ activities: [item({ id: 'a_carol' })] }, CAROL_FREE);
    assert.deepEqual([free.status, free.json], [200, { success: true, created: 1, updated: 0, ids: ['a_carol'] }]);
    // activity:write grants nothing else.
    const report = await call(t.app, 'GET', '/user', { key: CAROL_FREE });
    assert.deepEqual([report.status, report.json], failure(403, 'API key missing required scope: user:read'));
  });

  test("another user's ids, tasks and projects can be neither touched nor revealed", async () => {
    const before = await count();
    const cases: [unknown, number, string][] = [
      [{ activities: [item({ id: 'a_mine_x' }), item({ id: 'a_bob' })] }, 409, 'Activity id already in use: "a_bob"'],
      [{ activities: [item({ taskId: 'k_bob' })] }, 400, 'Unknown task id: "k_bob"'],
      [{ activities: [item({ taskId: 'k_nope' })] }, 400, 'Unknown task id: "k_nope"'],
      [{ activities: [item({ projectId: 'p_bobs' })] }, 400, 'Unknown project id: "p_bobs"'],
      [{ activities: [item({ projectId: 'p_ops' })] }, 400, 'Unknown project id: "p_ops"'],
      [{ activities: [item({ projectId: 'p_nope' })] }, 400, 'Unknown project id: "p_nope"'],
      [{ activities: [item({ projectId: 'p_old' })] }, 400, 'Project is archived: "p_old"'],
      [{ activities: [item({ taskId: 'k_alice_old' })] }, 400, 'Project is archived: "p_old"'],
      [{ activities: [item({ projectId: 'p_bobonly' })] }, 403, 'Not a contributor of project: "p_bobonly"'],
      [{ activities: [item({ category: 'Nope' })] }, 400, 'Category not found: "Nope"'],
      [{ activities: [item({ category: 'focus work' })] }, 400, 'Category not found: "focus work"'],
    ];
    for (const [body, status, error] of cases) {
      const res = await post(body);
      assert.deepEqual([res.status, res.json], failure(status, error), JSON.stringify(body));
    }
    assert.equal(await count(), before);
    const bob = await database.storage.db
      .selectFrom('activities')
      .selectAll()
      .where('id', '=', 'a_bob')
      .executeTakeFirst();
    assert.equal(bob?.headline, 'Bob secret work');
    // Bob may log to the project that lists him.
    const ok = await post({ activities: [item({ projectId: 'p_bobonly', id: 'a_bob_2' })] }, BOB);
    assert.equal(ok.status, 200);
  });

  test('two users racing to record one new id: one records it, the other gets 409', async () => {
    const batch = { activities: [item({ id: 'a_race', start: '2026-11-15T09:00:00Z' })] };
    const [alice, bob] = await Promise.all([post(batch), post(batch, BOB)]);
    assert.deepEqual([alice.status, bob.status].sort(), [200, 409]);
    const owner = await database.storage.db
      .selectFrom('activities')
      .select('user_id')
      .where('id', '=', 'a_race')
      .executeTakeFirstOrThrow();
    assert.equal(owner.user_id, alice.status === 200 ? 'u_alice' : 'u_bob');
  });

  test('every invalid item is a 400 naming it and its field, and stores nothing', async () => {
    const before = await count();
    const many = Array.from({ length: 1001 }, () => item());
    const cases: [unknown, string][] = [
      [{}, 'activities must hold between 1 and 1000 items'],
      [{ activities: [] }, 'activities must hold between 1 and 1000 items'],
      [{ activities: many }, 'activities must hold between 1 and 1000 items'],
      [{ activities: 'x' }, 'activities must hold between 1 and 1000 items'],
      [
        { activities: [item(), item({ durationMinutes: 0 })] },
        'activities[1].durationMinutes must be a number greater than 0 and at most 60',
      ],
      [
        { activities: [item({ durationMinutes: 61 })] },
        'activities[0].durationMinutes must be a number greater than 0 and at most 60',
      ],
      [
        { activities: [item({ durationMinutes: '5' })] },
        'activities[0].durationMinutes must be a number greater than 0 and at most 60',
      ],
      [{ activities: [item({ headline: '' })] }, 'activities[0].headline must be 1 to 300 characters, not blank'],
      [
        { activities: [item({ headline: ' \u00a0\t' })] },
        'activities[0].headline must be 1 to 300 characters, not blank',
      ],
      [
        { activities: [item({ headline: 'x'.repeat(301) })] },
        'activities[0].headline must be 1 to 300 characters, not blank',
      ],
      [{ activities: [item({ headline: 7 })] }, 'activities[0].headline must be 1 to 300 characters, not blank'],
      [
        { activities: [{ start: '2026-11-21T09:00:00Z' }] },
        'activities[0].headline must be 1 to 300 characters, not blank',
      ],
      [
        { activities: [item({ description: 'x'.repeat(5001) })] },
        'activities[0].description must be null or at most 5000 characters',
      ],
      [
        { activities: [item({ start: '2026-11-21T09:00:00' })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        { activities: [item({ start: '2026-02-30T09:00:00Z' })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        { activities: [item({ start: '2025-02-29T09:00:00Z' })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        { activities: [item({ start: '1900-02-29T09:00:00Z' })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        { activities: [item({ start: '2026-04-31T09:00:00Z' })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        { activities: [item({ start: '2026-11-00T09:00:00Z' })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        { activities: [item({ start: '2026-13-01T09:00:00Z' })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        { activities: [item({ start: '2026-11-21T24:00:00Z' })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        { activities: [item({ start: '2026-11-21T09:60Z' })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        { activities: [item({ start: '2026-11-21T09:00:60+01:00' })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        { activities: [item({ start: '0099-11-21T09:00:00Z' })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        { activities: [item({ start: true })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        { activities: [item({ start: undefined })] },
        'activities[0].start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [{ activities: [item({ id: 'bad id' })] }, 'activities[0].id must be 1 to 128 letters, digits or _ . : -'],
      [
        { activities: [item({ taskId: 5 })] },
        'activities[0].taskId must be null or an id that must be 1 to 128 letters, digits or _ . : -',
      ],
      [{ activities: [item({ id: 'a_dup' }), item({ id: 'a_dup' })] }, 'activities[1].id repeats activities[0].id'],
      [
        { activities: [item({ start: DEFAULT_NOW, durationMinutes: 6 })] },
        'activities[0].start must not make the activity end more than 5 minutes in the future',
      ],
      [
        { activities: [item({ headline: 'a\u0000b' })] },
        'activities[0].headline must not contain the NUL character (\\u0000)',
      ],
      [{ activities: [item({ headline: 'a\ud800b' })] }, 'activities[0].headline must not contain a lone surrogate'],
      [
        { activities: [item(), item({ description: '\udfff' })] },
        'activities[1].description must not contain a lone surrogate',
      ],
      [{ activities: [item({ category: 'x\ud800' })] }, 'activities[0].category must not contain a lone surrogate'],
    ];
    for (const [body, error] of cases) {
      const res = await post(body);
      assert.deepEqual([res.status, res.json], failure(400, error), JSON.stringify(body).slice(0, 200));
    }
    // Ending within 5 minutes of now is fine.
    const edge = await post({ activities: [item({ id: 'a_edge', start: DEFAULT_NOW, durationMinutes: 5 })] });
    assert.equal(edge.status, 200);
    assert.equal(await count(), before + 1);
    const malformed = await call(t.app, 'POST', '/activities', {
      key: ALICE,
      body: '{"activities": [',
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual([malformed.status, malformed.json], failure(400, 'Malformed JSON body'));
    const tooLarge = await call(t.app, 'POST', '/activities', {
      key: ALICE,
      body: JSON.stringify({ activities: [item({ description: 'x'.repeat(1024 * 1024) })] }),
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual([tooLarge.status, tooLarge.json], failure(413, 'Request body too large'));
    assert.equal(await count(), before + 1);
  });

  test('leap days and the last second of a day are real dates', async () => {
    const res = await post({
      activities: [
        item({ id: 'a_leap_2024', start: '2024-02-29T23:59:59+01:00' }),
        item({ id: 'a_leap_2000', start: '2000-02-29T00:00Z' }),
        item({ id: 'a_leap_1600', start: '1600-02-29T12:00:00.5Z' }),
      ],
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.deepEqual(res.json.ids, ['a_leap_2024', 'a_leap_2000', 'a_leap_1600']);
    const stored = await database.storage.db
      .selectFrom('activities')
      .select(['id', 'start', 'local_date'])
      .where('id', 'in', ['a_leap_2024', 'a_leap_2000', 'a_leap_1600'])
      .orderBy('start')
      .execute();
    assert.deepEqual(
      stored.map((r) => [r.id, Number(r.start), r.local_date]),
      [
        ['a_leap_1600', Date.parse('1600-02-29T12:00:00.500Z'), '1600-02-29'],
        ['a_leap_2000', Date.parse('2000-02-29T00:00:00Z'), '2000-02-29'],
        ['a_leap_2024', Date.parse('2024-02-29T22:59:59Z'), '2024-02-29'],
      ],
    );
  });

  test('a task’s minutes in /search add up without binary noise (0.4 + 0.2 + 0.1 is 0.7)', async () => {
    const task = await call(t.app, 'POST', '/tasks', {
      key: ALICE,
      body: { id: 'k_binary_noise', title: 'Quasar binary noise check', date: '2026-11-20' },
    });
    assert.equal(task.status, 201, JSON.stringify(task.json));
    const recorded = await post({
      activities: [0.4, 0.2, 0.1].map((minutes, i) =>
        item({ start: `2026-11-20T1${i}:00:00Z`, durationMinutes: minutes, taskId: 'k_binary_noise' }),
      ),
    });
    assert.equal(recorded.status, 200, JSON.stringify(recorded.json));
    const res = await call(t.app, 'POST', '/search', {
      key: ALICE,
      body: { query: 'quasar binary noise', sources: ['tasks'] },
    });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    assert.deepEqual(
      res.json.results.map((r: { id: string; metadata: unknown }) => [r.id, r.metadata]),
      [['k_binary_noise', { minutes: 0.7, projectId: null, visible: true }]],
    );
    // And the task as POST /tasks/:id answers it.
    const updated = await call(t.app, 'POST', '/tasks/k_binary_noise', { key: ALICE, body: { visible: true } });
    assert.equal(updated.status, 200, JSON.stringify(updated.json));
    assert.equal(updated.json.task.minutes, 0.7);
  });

  test('a batch of 1,000 items is stored whole', async () => {
    const activities = Array.from({ length: 1000 }, (_, i) =>
      item({ id: `a_bulk_${i}`, start: Date.parse('2026-11-10T00:00:00Z') + i * 60_000, durationMinutes: 1 }),
    );
    const res = await post({ activities });
    assert.deepEqual([res.status, res.json.created, res.json.updated], [200, 1000, 0]);
    assert.equal((await dayRow('2026-11-10')).duration, 1000);
  });
});
