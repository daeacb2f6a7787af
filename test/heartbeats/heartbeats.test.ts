/**
 * WakaTime-compatible heartbeats (decisions §8) through HTTP on both databases, with requests
 * shaped as wakatime-cli sends them (pkg/api/heartbeat.go: `POST <api_url>/users/current/
 * heartbeats.bulk`, a JSON list, `Authorization: Basic base64(key)`, its User-Agent and
 * X-Machine-Name headers, float `time`): every auth form and failure, the per-heartbeat
 * `responses`, duplicates, where the time lands, and the status bar.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { updateUser } from '../../src/storage/accounts.ts';
import { writeRecords } from '../../src/storage/writes.ts';
import { DEFAULT_NOW, type TestApp, type TestDatabase, call, forEachDialect } from '../helper.ts';
import { appOnDataset, ALICE, ALICE_NO_WRITE, BOB, world } from '../recording/world.ts';

const READS_ONLY = 'dbk_test_heartbeats_reads_only_0123456789';
const USER_ONLY = 'dbk_test_heartbeats_user_only_01234567890';
const heartbeatWorld = {
  ...world,
  apiKeys: [
    ...world.apiKeys,
    { userId: 'u_alice', name: 'reports', key: READS_ONLY, scopes: ['reports:read'] },
    { userId: 'u_alice', name: 'user', key: USER_ONLY, scopes: ['user:read'] },
  ],
};

const USER_AGENT = 'wakatime/v1.115.2 (linux-6.1.0-amd64-amd64) go1.24.4 vscode/1.101.0 vscode-wakatime/25.0.5';
const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
/** The headers wakatime-cli sets on every request (pkg/api/option.go, api.go). */
const cliHeaders = (key: string) => ({
  authorization: basic(key),
  'user-agent': USER_AGENT,
  'x-machine-name': 'build-box',
  accept: 'application/json',
  'content-type': 'application/json',
});

/** 2026-11-21 in UTC seconds, hours into the day. */
const at = (hhmm: string, date = '2026-11-21') => Date.parse(`${date}T${hhmm}:00Z`) / 1000;
const beat = (time: number, extra: Record<string, unknown> = {}) => ({
  entity: '/home/dev/daybook/src/server.ts',
  type: 'file',
  category: 'coding',
  time,
  project: 'Team project',
  branch: 'main',
  language: 'TypeScript',
  is_write: false,
  lines: 120,
  lineno: 42,
  cursorpos: 7,
  user_agent: USER_AGENT,
  ...extra,
});

forEachDialect('WakaTime-compatible heartbeats', (dialect) => {
  let database: TestDatabase;
  let t: TestApp;
  appOnDataset(dialect, 'hb', heartbeatWorld, (made) => {
    ({ database, t } = made);
  });

  const bulk = (body: unknown, headers: Record<string, string> = cliHeaders(ALICE), prefix = '/api/v1') =>
    t.app.inject({
      method: 'POST',
      url: `${prefix}/users/current/heartbeats.bulk`,
      headers,
      payload: JSON.stringify(body),
    });
  const dayRow = async (date: string, key = ALICE) => {
    const res = await call(t.app, 'POST', '/report', {
      key,
      body: {
        dateRange: { from: Date.parse(`${date}T00:00:00+01:00`), to: Date.parse(`${date}T23:59:59+01:00`) },
        aggregationLevel: 'day',
      },
    });
    assert.equal(res.status, 200, res.body);
    return res.json.rows.find((r: { id: string }) => r.id === `day:${date}`);
  };
  const count = async () =>
    Number(
      (
        await database.storage.db
          .selectFrom('heartbeats')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  test('a bulk as wakatime-cli sends it: 201 with one [data, 201] per heartbeat, stored with the machine', async () => {
    const beats = Array.from({ length: 25 }, (_, i) => beat(at('08:00') + i * 60 + 0.25, { lineno: i }));
    const res = await bulk(beats);
    assert.equal(res.statusCode, 201, res.body);
    const { responses } = res.json();
    assert.equal(responses.length, 25);
    for (const [i, [entry, status]] of responses.entries()) {
      assert.equal(status, 201);
      assert.equal(entry.data.time, beats[i]!.time);
      assert.equal(entry.data.lineno, i);
      assert.equal(entry.data.machine_name, 'build-box');
      assert.equal(entry.data.user_agent, USER_AGENT);
      assert.equal(entry.data.project, 'Team project');
      assert.match(entry.data.id, /^[0-9a-f-]{36}$/);
    }
    // 24 minutes of coding on the team project, at once in /report.
    const day = await dayRow('2026-11-21');
    assert.equal(day.duration, 24);
    assert.deepEqual(day.projects, [{ name: 'Team project', minutes: 24 }]);
    assert.deepEqual(day.categories, [{ name: 'Coding', minutes: 24 }]);
  });

  test('times with more digits than milliseconds are kept as sent and counted to the millisecond', async () => {
    const res = await bulk([beat(at('12:00', '2026-11-18') + 0.1234567), beat(at('12:01', '2026-11-18') + 0.9876543)]);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().responses[0][0].data.time, at('12:00', '2026-11-18') + 0.1234567);
    const day = await dayRow('2026-11-18');
    // Reports give minutes to 6 decimals.
    assert.equal(day.duration, Math.round(((60_000 + 988 - 123) / 60_000) * 1e6) / 1e6);
  });

  test("after a change of the user's timezone, a recompute replaces the day's derived time, never adds to it", async () => {
    const day = '2026-11-17';
    const total = async () => {
      const res = await call(t.app, 'POST', '/report', {
        key: BOB,
        body: {
          dateRange: { from: Date.parse('2026-11-16T00:00:00Z'), to: Date.parse('2026-11-19T00:00:00Z') },
          aggregationLevel: 'day',
        },
      });
      return res.json.rows.reduce((sum: number, r: { duration: number }) => sum + r.duration, 0);
    };
    const before = await total();
    await bulk([beat(at('20:00', day)), beat(at('20:10', day))], cliHeaders(BOB));
    assert.equal((await total()) - before, 10);
    // Bob moves to Tokyo (as `daybook users update --timezone` does): his activities move to
    // other local dates, their ids still naming the old one.
    await writeRecords(database.storage, {}, (session) => updateUser(session, 'u_bob', { timezone: 'Asia/Tokyo' }));
    await bulk([beat(at('20:15', day))], cliHeaders(BOB));
    assert.equal((await total()) - before, 15);
  });

  test('every way of presenting the key, on both prefixes; each failure in the envelope', async () => {
    const one = (i: number) => [beat(at('07:00') + i)];
    const forms: Record<string, string>[] = [
      { authorization: basic(ALICE) },
      { authorization: basic(`${ALICE}:`) },
      { authorization: `Bearer ${ALICE}` },
      { 'x-api-key': ALICE },
    ];
    let i = 0;
    for (const prefix of ['/api/v1', '/api/compat/wakatime/v1']) {
      for (const headers of forms) {
        const res = await bulk(one(i++), { ...headers, 'content-type': 'application/json' }, prefix);
        assert.equal(res.statusCode, 201, `${prefix} ${JSON.stringify(headers)}: ${res.body}`);
      }
    }
    const failures: [Record<string, string>, number, string][] = [
      [{}, 401, 'Missing API key'],
      [{ authorization: 'Digest abc' }, 401, 'Missing API key'],
      [{ authorization: basic('dbk_not_a_key') }, 401, 'Invalid API key'],
      [{ authorization: basic(ALICE_NO_WRITE) }, 403, 'API key missing required scope: activity:write'],
      [{ authorization: `Bearer ${READS_ONLY}` }, 403, 'API key missing required scope: activity:write'],
    ];
    for (const [headers, status, error] of failures) {
      const res = await bulk(one(0), { ...headers, 'content-type': 'application/json' });
      assert.deepEqual([res.statusCode, res.json()], [status, { success: false, error, message: error }]);
    }
    // Basic is for these routes only.
    const elsewhere = await t.app.inject({ method: 'GET', url: '/user', headers: { authorization: basic(ALICE) } });
    assert.equal(elsewhere.statusCode, 401);
  });

  test('valid heartbeats are stored beside refused ones; a single object answers on its own', async () => {
    const before = await count();
    const now = DEFAULT_NOW / 1000;
    const res = await bulk([
      beat(at('06:00')),
      { entity: 'x' },
      beat(now + 3601),
      beat(now - 366 * 86_400),
      beat(at('06:01'), { type: 'folder' }),
      'not an object',
      beat(at('06:02'), { entity: '' }),
      beat(at('06:03'), { is_write: 'yes' }),
      beat(at('06:04'), { lines: 1.5 }),
      beat(at('06:05'), { project: 7 }),
      beat(at('06:06')),
    ]);
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(
      res.json().responses.map(([entry, status]: [Record<string, unknown>, number]) => [status, entry.error ?? 'ok']),
      [
        [201, 'ok'],
        [400, 'time must be a number of Unix seconds'],
        [400, 'time must not be more than 1 hour in the future'],
        [400, 'time must not be more than 365 days in the past'],
        [400, 'type must be one of: file, domain, url, app'],
        [400, 'heartbeat must be a JSON object'],
        [400, 'entity must be a string of 1 to 2000 characters'],
        [400, 'is_write must be true, false or null'],
        [400, 'lines must be an integer from -2147483648 to 2147483647, or null'],
        [400, 'project must be a string of at most 300 characters, or null'],
        [201, 'ok'],
      ],
    );
    assert.equal(await count(), before + 2);

    const single = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users/current/heartbeats',
      headers: cliHeaders(ALICE),
      payload: JSON.stringify(beat(at('06:07'))),
    });
    assert.equal(single.statusCode, 201, single.body);
    assert.equal(single.json().data.time, at('06:07'));
    const bad = await t.app.inject({
      method: 'POST',
      url: '/api/v1/users/current/heartbeats',
      headers: cliHeaders(ALICE),
      payload: JSON.stringify({ entity: 'x', time: 'noon' }),
    });
    assert.deepEqual([bad.statusCode, bad.json().error], [400, 'time must be a number of Unix seconds']);
    const list = await t.app.inject({
      method: 'POST',
      url: '/api/compat/wakatime/v1/users/current/heartbeats',
      headers: cliHeaders(ALICE),
      payload: JSON.stringify([beat(at('06:08')), {}]),
    });
    assert.deepEqual(
      list.json().responses.map((r: [unknown, number]) => r[1]),
      [201, 400],
    );
    const tooMany = await bulk(Array.from({ length: 1001 }, (_, i) => beat(at('05:00') + i)));
    assert.deepEqual(
      [tooMany.statusCode, tooMany.json().error],
      [400, 'heartbeats must be a list of at most 1000 heartbeats'],
    );
    const notList = await bulk({ entity: 'x', time: at('05:00') });
    assert.equal(notList.statusCode, 400);
  });

  test('a resent queue changes nothing: the same ids, nothing stored twice', async () => {
    const queue = [beat(at('10:00', '2026-11-20')), beat(at('10:05', '2026-11-20'), { is_write: true })];
    const first = await bulk(queue);
    const rows = await count();
    const day = await dayRow('2026-11-20');
    const again = await bulk([...queue].reverse());
    assert.equal(await count(), rows);
    assert.deepEqual(
      again.json().responses.map((r: [{ data: { id: string } }, number]) => r[0].data.id),
      first
        .json()
        .responses.map((r: [{ data: { id: string } }, number]) => r[0].data.id)
        .reverse(),
    );
    assert.deepEqual(await dayRow('2026-11-20'), day);
    // Differing in is_write alone is another heartbeat.
    await bulk([beat(at('10:05', '2026-11-20'), { is_write: false })]);
    assert.equal(await count(), rows + 1);
  });

  test('where the time lands: matching, archived and new projects, categories, tasks, search', async () => {
    const date = '2026-11-19';
    await bulk([
      beat(at('09:00', date), { project: 'Old', category: 'debugging' }),
      beat(at('09:10', date), { project: 'Old', category: 'debugging' }),
      beat(at('09:20', date), {
        project: 'Zephyr engine',
        category: 'writing tests',
        language: 'Rust',
        branch: 'feat/zx',
      }),
      beat(at('09:30', date), {
        project: 'Zephyr engine',
        category: 'writing tests',
        language: 'Go',
        branch: 'feat/zx',
      }),
      beat(at('09:40', date), { project: null, category: 'browsing', type: 'domain', entity: 'docs.example.com' }),
      beat(at('09:50', date), { project: null, category: 'browsing', type: 'domain', entity: 'docs.example.com' }),
    ]);
    const day = await dayRow(date);
    // Old is archived: its 20 minutes have no project. The 10-minute gap to the next project counts to the first.
    assert.equal(day.duration, 50);
    assert.deepEqual(day.projects, [{ name: 'Zephyr engine', minutes: 20 }]);
    assert.deepEqual(day.categories, [
      { name: 'Debugging', minutes: 20 },
      { name: 'Writing tests', minutes: 20 },
      { name: 'Browsing', minutes: 10 },
    ]);
    assert.deepEqual(day.tasks.map((task: { title: string; duration: number }) => [task.title, task.duration]).sort(), [
      ['No project', 30],
      ['Zephyr engine', 20],
    ]);
    const projects = await call(t.app, 'GET', '/projects', { key: ALICE });
    const created = projects.json.projects.find((p: { name: string }) => p.name === 'Zephyr engine');
    assert.equal(created.teamId, null);
    assert.equal(created.createdBy, 'u_alice');
    assert.equal(created.usedAt, '2026-11-19T09:20:00.000Z');
    for (const query of ['zephyr', 'rust', 'feat']) {
      const found = await call(t.app, 'POST', '/search', { key: ALICE, body: { query, days: 30 } });
      assert.ok(found.json.results.length > 0, `${query}: ${found.body}`);
    }
    // Bob's heartbeats for a project of Alice's name make his own project of that name.
    await bulk(
      [beat(at('09:00', date), { project: 'Zephyr engine' }), beat(at('09:05', date), { project: 'Zephyr engine' })],
      cliHeaders(BOB),
    );
    const bobs = await call(t.app, 'GET', '/projects', { key: BOB });
    const his = bobs.json.projects.filter((p: { name: string }) => p.name === 'Zephyr engine');
    assert.equal(his.length, 1);
    assert.equal(his[0].createdBy, 'u_bob');
  });

  test('the status bar: today, all tracked time, for activity:write or reports:read', async () => {
    // DEFAULT_NOW is 2026-11-22 13:00 in Berlin: Alice's today.
    await bulk([beat(at('10:00', '2026-11-22')), beat(at('10:15', '2026-11-22'))]);
    await bulk([beat(at('11:00', '2026-11-22'), { project: null, category: 'meeting' })]);
    await call(t.app, 'POST', '/activities', {
      key: ALICE,
      body: { activities: [{ start: '2026-11-22T11:40:00Z', durationMinutes: 20, headline: 'Written by hand' }] },
    });
    for (const headers of [cliHeaders(ALICE), { authorization: `Bearer ${READS_ONLY}` }]) {
      const res = await t.app.inject({ method: 'GET', url: '/api/v1/users/current/statusbar/today', headers });
      assert.equal(res.statusCode, 200, res.body);
      const { data } = res.json();
      assert.deepEqual(data.range, {
        date: '2026-11-22',
        start: '2026-11-21T23:00:00.000Z',
        end: '2026-11-22T22:59:59.000Z',
        timezone: 'Europe/Berlin',
      });
      // 15 minutes of coding on the team project, the meeting's lone heartbeat nothing, and 20 by hand.
      assert.equal(data.grand_total.total_seconds, 35 * 60);
      assert.equal(data.grand_total.digital, '0:35');
      assert.equal(data.grand_total.text, '35 mins');
      assert.equal(data.grand_total.decimal, '0.58');
      assert.deepEqual(
        data.projects.map((p: { name: string; total_seconds: number; percent: number }) => [
          p.name,
          p.total_seconds,
          p.percent,
        ]),
        [['Team project', 15 * 60, 42.86]],
      );
      assert.deepEqual(
        data.categories.map((c: { name: string; total_seconds: number }) => [c.name, c.total_seconds]),
        [
          ['Uncategorized', 20 * 60],
          ['Coding', 15 * 60],
        ],
      );
    }
    const refused = await t.app.inject({
      method: 'GET',
      url: '/api/compat/wakatime/v1/users/current/statusbar/today',
      headers: { authorization: basic(USER_ONLY) },
    });
    assert.deepEqual(
      [refused.statusCode, refused.json().error],
      [403, 'API key missing required scope: activity:write'],
    );
  });
});
