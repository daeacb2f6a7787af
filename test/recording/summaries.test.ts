/**
 * Summaries of ended periods that an API write touches are rebuilt on the next generation run,
 * as after an import (decisions §7.2): activities, tasks with their time, task renames and
 * moves, deletes and day comments, on both databases.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generate } from '../summaries/support.ts';
import { DEFAULT_NOW, type TestApp, call, forEachDialect } from '../helper.ts';
import { appOnDataset, ALICE, world } from './world.ts';

// A Tuesday of a week that ended before DEFAULT_NOW (2026-11-22) in Alice's Berlin.
const DAY = '2026-11-10';

forEachDialect('summaries after writes through the API', (dialect) => {
  let t: TestApp;
  appOnDataset(dialect, 'sum', world, (made) => {
    ({ t } = made);
  });

  let clock = DEFAULT_NOW;
  /** Each step happens a minute after the last, as a server's writes and runs would. */
  const tick = () => {
    clock += 60_000;
    t.setNow(clock);
    return clock;
  };
  const write = async (method: 'POST' | 'DELETE', url: string, body?: unknown) => {
    tick();
    const res = await call(t.app, method, url, { key: ALICE, body });
    assert.ok(res.status < 300, `${method} ${url}: ${res.body}`);
    return res;
  };
  const run = () => generate(t.storage, tick());
  const day = async () => {
    const res = await call(t.app, 'GET', `/message?date=${DAY}&level=day&format=text`, { key: ALICE });
    return res.status === 200 ? (res.json.content as string) : `${res.status}`;
  };
  const week = async () =>
    (await call(t.app, 'GET', `/message?date=${DAY}&level=week&format=text`, { key: ALICE })).json.content as string;

  test('each kind of write rebuilds the summaries of the ended periods it touches', async () => {
    await write('POST', '/activities', {
      activities: [
        { id: 'a_sum', start: `${DAY}T08:00:00Z`, durationMinutes: 30, headline: 'Notes', projectId: 'p_team' },
      ],
    });
    assert.ok((await run()).built > 0);
    assert.match(await day(), /30 min tracked/);
    assert.equal((await run()).built, 0, 'nothing changed since');

    await write('POST', '/tasks', { id: 'k_sum', title: 'Capacity planning', date: DAY, minutes: 90 });
    assert.ok((await run()).built > 0);
    assert.match(await day(), /2 h tracked/);
    assert.match(await day(), /Capacity planning — 1 h 30 min/);
    assert.match(await week(), /Capacity planning/);

    await write('POST', '/tasks/k_sum', { title: 'Capacity review', project: 'p_team' });
    await run();
    assert.match(await day(), /Capacity review \(Team project\) — 1 h 30 min/);
    assert.match(await day(), /Team project — 2 h/);

    await write('POST', '/day-comments', { date: DAY, comment: 'Planning day' });
    await run();
    assert.match(await day(), /Comments\n- Nov 10: Planning day/);

    await write('DELETE', '/tasks/k_sum');
    await run();
    assert.match(await day(), /30 min tracked/);
    assert.doesNotMatch(await day(), /Capacity/);

    await write('POST', '/day-comments', { date: DAY, comment: '' });
    await write('DELETE', '/activities/a_sum');
    const last = await run();
    assert.ok(last.removed > 0, JSON.stringify(last));
    assert.equal(await day(), '404');
  });
});
