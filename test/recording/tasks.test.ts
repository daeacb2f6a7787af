/**
 * POST /tasks, POST /tasks/:id, DELETE /tasks/:id and POST /day-comments (decisions §7.4–§7.6)
 * through HTTP on both databases: every rule and message, the time of `minutes` as activities,
 * projects by id or name under the logging rules, isolation from other users, bad input that
 * stores nothing, and each write showing at once in /report, /search and usedAt.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type TestApp, type TestDatabase, call, forEachDialect } from '../helper.ts';
import { appOnDataset, ALICE, ALICE_NO_WRITE, BOB, CAROL_FREE, world } from './world.ts';

// DEFAULT_NOW is 2026-11-22 13:00 in Alice's Europe/Berlin (UTC+1 in November).
const TODAY = '2026-11-22';

forEachDialect('POST /tasks, POST /tasks/:id, DELETE /tasks/:id and POST /day-comments', (dialect) => {
  let database: TestDatabase;
  let t: TestApp;
  appOnDataset(dialect, 'tasks', world, (made) => {
    ({ database, t } = made);
  });

  const create = (body: unknown, key = ALICE) => call(t.app, 'POST', '/tasks', { key, body });
  const update = (id: string, body: unknown, key = ALICE) => call(t.app, 'POST', `/tasks/${id}`, { key, body });
  const failure = (status: number, error: string) => [status, { success: false, error, message: error }];
  const count = async (table: 'tasks' | 'activities' | 'day_comments') =>
    Number(
      (
        await database.storage.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  const report = async (date: string, aggregationLevel: 'day' | 'task' | 'activity', key = ALICE) => {
    const res = await call(t.app, 'POST', '/report', {
      key,
      body: {
        dateRange: { from: Date.parse(`${date}T00:00:00+01:00`), to: Date.parse(`${date}T23:59:59+01:00`) },
        aggregationLevel,
      },
    });
    assert.equal(res.status, 200, res.body);
    return res.json.rows as Record<string, unknown>[];
  };
  const dayRow = async (date: string) => (await report(date, 'day')).find((r) => r.id === `day:${date}`);
  const search = async (query: string) =>
    (await call(t.app, 'POST', '/search', { key: ALICE, body: { query, days: 30 } })).json.results.map(
      (r: { id: string }) => r.id,
    );

  test('minutes become activities of at most 60 minutes from 09:00 local, shown at once everywhere', async () => {
    const res = await create({
      id: 'k_new',
      title: 'Migrated the billing tables',
      description: 'Zebraform rollout',
      date: '2026-11-20',
      project: 'Team project',
      minutes: 150,
    });
    assert.equal(res.status, 201, res.body);
    assert.deepEqual(res.json, {
      success: true,
      task: {
        id: 'k_new',
        title: 'Migrated the billing tables',
        description: 'Zebraform rollout',
        date: '2026-11-20',
        projectId: 'p_team',
        visible: true,
        minutes: 150,
        // The start of its first activity: 09:00 in Berlin.
        createdAt: '2026-11-20T08:00:00.000Z',
      },
    });
    const activities = (await report('2026-11-20', 'activity')).filter(
      (r) => r.headline === 'Migrated the billing tables',
    );
    assert.deepEqual(activities.map((r) => [r.timestampIso, r.duration]).sort(), [
      ['2026-11-20T08:00:00.000Z', 60],
      ['2026-11-20T09:00:00.000Z', 60],
      ['2026-11-20T10:00:00.000Z', 30],
    ]);
    const day = await dayRow('2026-11-20');
    assert.equal(day?.duration, 150);
    assert.deepEqual(day?.projects, [{ name: 'Team project', minutes: 150 }]);
    assert.deepEqual(day?.tasks, [{ title: 'Migrated the billing tables', duration: 150 }]);
    assert.ok((await search('zebraform')).includes('k_new'));
    const project = await call(t.app, 'GET', '/projects/p_team', { key: ALICE });
    assert.equal(project.json.project.usedAt, '2026-11-20T10:00:00.000Z');
  });

  test('defaults: today local, no project, visible, no time; start sets the date and where minutes begin', async () => {
    const plain = await create({ title: 'Plan the week' });
    assert.equal(plain.status, 201, plain.body);
    assert.match(plain.json.task.id, /^[A-Za-z0-9_.:-]+$/);
    assert.deepEqual(
      { ...plain.json.task, id: undefined },
      {
        id: undefined,
        title: 'Plan the week',
        description: null,
        date: TODAY,
        projectId: null,
        visible: true,
        minutes: 0,
        // Noon of its date while it has no activities.
        createdAt: '2026-11-22T11:00:00.000Z',
      },
    );
    // 23:30 UTC on the 18th is already the 19th in Berlin.
    const late = await create({ id: 'k_late', title: 'Night deploy', start: '2026-11-18T23:30:00Z', minutes: 45 });
    assert.equal(late.status, 201, late.body);
    assert.equal(late.json.task.date, '2026-11-19');
    assert.equal(late.json.task.createdAt, '2026-11-18T23:30:00.000Z');
    const hidden = await create({ id: 'k_hidden', title: 'Private errand', visible: false, date: '2026-11-19' });
    assert.equal(hidden.json.task.visible, false);
  });

  test('the span must lie within the local day and not end in the future', async () => {
    const before = [await count('tasks'), await count('activities')];
    const cases: [unknown, string][] = [
      [
        { title: 'x', date: '2026-11-20', start: '2026-11-21T09:00:00+01:00', minutes: 10 },
        "start must lie within the task's local date 2026-11-20",
      ],
      [
        { title: 'x', date: '2026-11-20', start: '2026-11-19T23:59:00+01:00' },
        "start must lie within the task's local date 2026-11-20",
      ],
      [
        { title: 'x', date: '2026-11-20', minutes: 901 },
        "minutes must end by the end of the task's local date 2026-11-20 (from 2026-11-20T08:00:00.000Z)",
      ],
      [
        { title: 'x', start: '2026-11-20T23:00:00+01:00', minutes: 61 },
        "minutes must end by the end of the task's local date 2026-11-20 (from 2026-11-20T22:00:00.000Z)",
      ],
      [{ title: 'x', minutes: 300 }, 'minutes must not make the time end more than 5 minutes in the future'],
      [
        { title: 'x', start: '2026-11-22T13:30:00+01:00', minutes: 1 },
        'start must not make the time end more than 5 minutes in the future',
      ],
    ];
    for (const [body, error] of cases) {
      const res = await create(body);
      assert.deepEqual([res.status, res.json], failure(400, error), JSON.stringify(body));
    }
    assert.deepEqual([await count('tasks'), await count('activities')], before);
    // 900 minutes from 09:00 end at midnight exactly; today's time may end within 5 minutes of now.
    assert.equal((await create({ title: 'Long day', date: '2026-11-17', minutes: 900 })).status, 201);
    assert.equal((await create({ title: 'Morning', minutes: 244 })).status, 201);
  });

  test('projects by id or exact name, under the rules of logging time; ids of any user are taken', async () => {
    const before = [await count('tasks'), await count('activities')];
    const cases: [unknown, number, string][] = [
      [{ title: 'x', project: 'Nope' }, 400, 'Project not found: "Nope"'],
      [{ title: 'x', project: 'team project' }, 400, 'Project not found: "team project"'],
      [{ title: 'x', project: 'Bob personal' }, 400, 'Project not found: "Bob personal"'],
      [{ title: 'x', project: 'p_ops' }, 400, 'Project not found: "p_ops"'],
      [{ title: 'x', project: 'Old', minutes: 30, date: '2026-11-20' }, 400, 'Project is archived: "p_old"'],
      [{ title: 'x', project: 'p_bobonly' }, 403, 'Not a contributor of project: "p_bobonly"'],
      [{ title: 'x', id: 'k_bob' }, 409, 'Task id already in use: "k_bob"'],
      [{ title: 'x', id: 'k_alice' }, 409, 'Task id already in use: "k_alice"'],
    ];
    for (const [body, status, error] of cases) {
      const res = await create(body);
      assert.deepEqual([res.status, res.json], failure(status, error), JSON.stringify(body));
    }
    assert.deepEqual([await count('tasks'), await count('activities')], before);
    const byId = await create({ title: 'x', project: 'p_team' });
    assert.equal(byId.json.task.projectId, 'p_team');
    const trimmed = await create({ title: 'x', project: ' Team project ' });
    assert.equal(trimmed.json.task.projectId, 'p_team');
    const bobs = await create({ title: 'x', project: 'Bob only' }, BOB);
    assert.equal(bobs.json.task.projectId, 'p_bobonly');
    const bobTask = await database.storage.db
      .selectFrom('tasks')
      .select(['title', 'user_id'])
      .where('id', '=', 'k_bob')
      .executeTakeFirstOrThrow();
    assert.deepEqual(bobTask, { title: 'Bob task', user_id: 'u_bob' });
  });

  test("an update changes what it names; the task's activities follow its project", async () => {
    await create({ id: 'k_move', title: 'Quarterly review', date: '2026-11-16', project: 'p_team', minutes: 30 });
    assert.deepEqual((await dayRow('2026-11-16'))?.projects, [{ name: 'Team project', minutes: 30 }]);
    const renamed = await update('k_move', { title: 'Quokka review', visible: false });
    assert.equal(renamed.status, 200, renamed.body);
    assert.deepEqual(renamed.json.task, {
      id: 'k_move',
      title: 'Quokka review',
      description: null,
      date: '2026-11-16',
      projectId: 'p_team',
      visible: false,
      minutes: 30,
      createdAt: '2026-11-16T08:00:00.000Z',
    });
    assert.deepEqual(await search('quokka'), ['k_move']);
    const moved = await update('k_move', { project: null, description: 'Now personal' });
    assert.deepEqual([moved.json.task.projectId, moved.json.task.description], [null, 'Now personal']);
    assert.deepEqual((await dayRow('2026-11-16'))?.projects, []);
    const back = await update('k_move', { project: 'Team project', visible: true });
    assert.deepEqual([back.json.task.projectId, back.json.task.visible], ['p_team', true]);
    assert.deepEqual((await dayRow('2026-11-16'))?.projects, [{ name: 'Team project', minutes: 30 }]);
    // Bob sees Alice's time on the team project in the team report.
    const team = await call(t.app, 'POST', '/report', {
      key: BOB,
      body: {
        dateRange: { from: Date.parse('2026-11-16T00:00:00Z'), to: Date.parse('2026-11-16T23:59:59Z') },
        aggregationLevel: 'task',
        teamIds: ['t_eng'],
      },
    });
    assert.equal(team.status, 200, team.body);
    assert.ok(JSON.stringify(team.json.rows).includes('Quokka review'), team.body);

    const cases: [string, unknown, number, string][] = [
      ['k_bob', { title: 'Mine now' }, 404, 'Task not found'],
      ['k_nope', { title: 'x' }, 404, 'Task not found'],
      ['k_move', { project: 'Old' }, 400, 'Project is archived: "p_old"'],
      ['k_move', { project: 'Bob only' }, 403, 'Not a contributor of project: "p_bobonly"'],
      ['k_move', { project: 'Ops work' }, 400, 'Project not found: "Ops work"'],
      ['k_move', { title: '  ' }, 400, 'title must be 1 to 300 characters, not blank'],
      ['k_move', { visible: 'no' }, 400, 'visible must be true or false'],
    ];
    for (const [id, body, status, error] of cases) {
      const res = await update(id, body);
      assert.deepEqual([res.status, res.json], failure(status, error), `${id} ${JSON.stringify(body)}`);
    }
    // A task keeps a project that was archived after it was chosen, while other fields change.
    const keep = await update('k_alice_old', { title: 'Old task, renamed' });
    assert.deepEqual([keep.status, keep.json.task.projectId], [200, 'p_old']);
  });

  test("DELETE removes the task and its activities at once; anything not the caller's is 404", async () => {
    await create({ id: 'k_gone', title: 'Xylophone tuning', date: '2026-11-15', project: 'p_team', minutes: 90 });
    assert.equal((await dayRow('2026-11-15'))?.duration, 90);
    const res = await call(t.app, 'DELETE', '/tasks/k_gone', { key: ALICE });
    assert.deepEqual([res.status, res.json], [200, { success: true }]);
    assert.equal(await dayRow('2026-11-15'), undefined);
    assert.deepEqual(await search('xylophone'), []);
    const again = await call(t.app, 'DELETE', '/tasks/k_gone', { key: ALICE });
    assert.deepEqual([again.status, again.json], failure(404, 'Task not found'));
    const bobs = await call(t.app, 'DELETE', '/tasks/k_bob', { key: ALICE });
    assert.deepEqual([bobs.status, bobs.json], failure(404, 'Task not found'));
    assert.equal(
      (await database.storage.db.selectFrom('tasks').select('id').where('id', '=', 'k_bob').execute()).length,
      1,
    );
  });

  test('the project usedAt falls back when its latest activity goes with its task', async () => {
    await create({ id: 'k_last', title: 'Latest', date: '2026-11-21', project: 'p_team', minutes: 20 });
    const latest = await call(t.app, 'GET', '/projects/p_team', { key: ALICE });
    assert.equal(latest.json.project.usedAt, '2026-11-21T08:00:00.000Z');
    await call(t.app, 'DELETE', '/tasks/k_last', { key: ALICE });
    const after = await call(t.app, 'GET', '/projects/p_team', { key: ALICE });
    assert.ok(after.json.project.usedAt < '2026-11-21T08:00:00.000Z', after.json.project.usedAt);
  });

  test('a day comment is set, replaced and removed with ""; it is the caller\'s own', async () => {
    await create({ id: 'k_commented', title: 'Work', date: '2026-11-14', minutes: 60 });
    const set = await call(t.app, 'POST', '/day-comments', {
      key: ALICE,
      body: { date: '2026-11-14', comment: 'Offsite' },
    });
    assert.deepEqual([set.status, set.json], [200, { success: true, date: '2026-11-14', comment: 'Offsite' }]);
    assert.equal((await dayRow('2026-11-14'))?.comment, 'Offsite');
    await call(t.app, 'POST', '/day-comments', { key: ALICE, body: { date: '2026-11-14', comment: 'Offsite, day 2' } });
    assert.equal((await dayRow('2026-11-14'))?.comment, 'Offsite, day 2');
    const bobs = await call(t.app, 'POST', '/day-comments', { key: BOB, body: { date: '2026-11-14', comment: 'Bob' } });
    assert.equal(bobs.status, 200);
    assert.equal((await dayRow('2026-11-14'))?.comment, 'Offsite, day 2');
    const removed = await call(t.app, 'POST', '/day-comments', {
      key: ALICE,
      body: { date: '2026-11-14', comment: '' },
    });
    assert.deepEqual(removed.json, { success: true, date: '2026-11-14', comment: '' });
    assert.equal((await dayRow('2026-11-14'))?.comment ?? '', '');
    const left = await database.storage.db
      .selectFrom('day_comments')
      .select('user_id')
      .where('date', '=', '2026-11-14')
      .execute();
    assert.deepEqual(left, [{ user_id: 'u_bob' }]);
  });

  test('scope activity:write is needed, on every plan', async () => {
    const cases: ['POST' | 'DELETE', string, unknown][] = [
      ['POST', '/tasks', { title: 'x' }],
      ['POST', '/tasks/k_alice', { title: 'x' }],
      ['DELETE', '/tasks/k_alice', undefined],
      ['POST', '/day-comments', { date: TODAY, comment: 'x' }],
    ];
    for (const [method, url, body] of cases) {
      const res = await call(t.app, method, url, { key: ALICE_NO_WRITE, body });
      assert.deepEqual([res.status, res.json], failure(403, 'API key missing required scope: activity:write'), url);
    }
    const free = await create({ title: 'Free plan task', minutes: 5 }, CAROL_FREE);
    assert.equal(free.status, 201, free.body);
    const comment = await call(t.app, 'POST', '/day-comments', {
      key: CAROL_FREE,
      body: { date: TODAY, comment: 'Free plan comment' },
    });
    assert.equal(comment.status, 200, comment.body);
  });

  test('every invalid field is a 400 naming it, and stores nothing', async () => {
    const before = [await count('tasks'), await count('activities'), await count('day_comments')];
    const cases: [string, unknown, string][] = [
      ['/tasks', {}, 'title must be 1 to 300 characters, not blank'],
      ['/tasks', [], 'body must be a JSON object'],
      ['/tasks', { title: '' }, 'title must be 1 to 300 characters, not blank'],
      ['/tasks', { title: '\u2003\n' }, 'title must be 1 to 300 characters, not blank'],
      ['/tasks', { title: 'x'.repeat(301) }, 'title must be 1 to 300 characters, not blank'],
      ['/tasks', { title: 5 }, 'title must be 1 to 300 characters, not blank'],
      ['/tasks', { title: 'a\u0000b' }, 'title must not contain the NUL character (\\u0000)'],
      ['/tasks', { title: 'a\ud800b' }, 'title must not contain a lone surrogate'],
      ['/tasks', { title: 'x', description: 'x'.repeat(5001) }, 'description must be null or at most 5000 characters'],
      ['/tasks', { title: 'x', description: '\udc00' }, 'description must not contain a lone surrogate'],
      ['/tasks', { title: 'x', date: '2026-02-30' }, 'date must be a date in the form YYYY-MM-DD'],
      ['/tasks', { title: 'x', date: '20.11.2026' }, 'date must be a date in the form YYYY-MM-DD'],
      ['/tasks', { title: 'x', minutes: 0 }, 'minutes must be an integer from 1 to 1440'],
      ['/tasks', { title: 'x', minutes: 1441 }, 'minutes must be an integer from 1 to 1440'],
      ['/tasks', { title: 'x', minutes: 1.5 }, 'minutes must be an integer from 1 to 1440'],
      ['/tasks', { title: 'x', minutes: '30' }, 'minutes must be an integer from 1 to 1440'],
      [
        '/tasks',
        { title: 'x', start: '2026-11-20T09:00:00' },
        'start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      [
        '/tasks',
        { title: 'x', start: '2026-11-31T09:00:00Z' },
        'start must be an ISO 8601 instant with an offset or Z, or Unix milliseconds',
      ],
      ['/tasks', { title: 'x', id: 'has space' }, 'id must be 1 to 128 letters, digits or _ . : -'],
      ['/tasks', { title: 'x', project: 7 }, 'project must be null or a project id or name'],
      ['/tasks', { title: 'x', visible: 1 }, 'visible must be true or false'],
      ['/tasks/k_alice', { description: 5 }, 'description must be null or at most 5000 characters'],
      ['/day-comments', { comment: 'x' }, 'date must be a date in the form YYYY-MM-DD'],
      [
        '/day-comments',
        { date: TODAY },
        'comment must be a string of at most 5000 characters ("" removes the comment)',
      ],
      [
        '/day-comments',
        { date: TODAY, comment: null },
        'comment must be a string of at most 5000 characters ("" removes the comment)',
      ],
      [
        '/day-comments',
        { date: TODAY, comment: 'x'.repeat(5001) },
        'comment must be a string of at most 5000 characters ("" removes the comment)',
      ],
      ['/day-comments', { date: TODAY, comment: 'a\ud83d' }, 'comment must not contain a lone surrogate'],
    ];
    for (const [url, body, error] of cases) {
      const res = await call(t.app, 'POST', url, { key: ALICE, body });
      assert.deepEqual([res.status, res.json], failure(400, error), `${url} ${JSON.stringify(body)}`);
    }
    const tooLarge = await call(t.app, 'POST', '/tasks', {
      key: ALICE,
      body: JSON.stringify({ title: 'x', description: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual([tooLarge.status, tooLarge.json], failure(413, 'Request body too large'));
    assert.deepEqual([await count('tasks'), await count('activities'), await count('day_comments')], before);
  });
});
