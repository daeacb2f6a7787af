/** GET and POST /message through real HTTP (api.md `/message`, docs/api.md, "GET / POST /message"). */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { importDataset } from '../../src/dataset/import.ts';
import { EXAMPLE, KEYS, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';
import { SUMMARIES_FIXTURE, ZOE, fetchMessage, generate } from './support.ts';

const NO_SUMMARY = {
  success: false,
  error: 'No summary exists for this date and level yet.',
  message: 'No summary exists for this date and level yet.',
};
/** Thursday 2026-11-19, 12:00 in Los Angeles (u_zoe's timezone). */
const NOV_19_NOON_LA = Date.parse('2026-11-19T20:00:00Z');

forEachDialect('/message', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { dataset: SUMMARIES_FIXTURE, now: NOV_19_NOON_LA });
    await importDataset(t.storage, EXAMPLE, { now: () => NOV_19_NOON_LA });
  });
  after(() => t.close());

  test('before the generator has run, even an ended day with tracked time is 404', async () => {
    const res = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18' });
    assert.deepEqual([res.status, res.json], [404, NO_SUMMARY]);
  });

  test("no parameters: yesterday's daily summary as HTML", async () => {
    await generate(t.storage, NOV_19_NOON_LA);
    const res = await fetchMessage(t.app, ZOE.summaries);
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(Object.keys(res.json).sort(), ['content', 'format', 'level', 'metadata', 'success']);
    assert.equal(res.json.success, true);
    assert.equal(res.json.level, 'day');
    assert.equal(res.json.format, 'html');
    assert.deepEqual(res.json.metadata, { subject: "Zoë's daily summary: Nov 18" });
    assert.match(res.json.content, /^<section[^>]*>[\s\S]*<\/section>\n$/);
    // Nov 18 in Los Angeles: 1 h 15 min of the customer call plus 20 min at 23:30 (Nov 19 in UTC).
    assert.match(res.json.content, /1 h 35 min tracked/);
  });

  test('POST without a body, with an empty body, and GET agree on the defaults', async () => {
    const get = await fetchMessage(t.app, ZOE.summaries);
    const empty = await call(t.app, 'POST', '/message', { key: ZOE.summaries });
    const braces = await fetchMessage(t.app, ZOE.summaries, {}, 'POST');
    assert.equal(empty.status, 200, empty.body);
    assert.deepEqual(empty.json, get.json);
    assert.deepEqual(braces.json, get.json);
  });

  test('POST reads date, level and format from the JSON body; GET from the query string', async () => {
    const params = { date: '2026-11-17', level: 'day', format: 'text' };
    const post = await fetchMessage(t.app, ZOE.summaries, params, 'POST');
    const get = await fetchMessage(t.app, ZOE.summaries, params);
    assert.equal(post.status, 200, post.body);
    assert.deepEqual(post.json, get.json);
    assert.equal(post.json.format, 'text');
    assert.equal(post.json.metadata.subject, "Zoë's daily summary: Nov 17");
    assert.match(post.json.content, /^Zoë's daily summary: Nov 17\n\n2 h tracked\n/);
  });

  test('every format answers from the same summary', async () => {
    for (const format of ['html', 'text', 'slack', 'discord']) {
      const res = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-16', format });
      assert.equal(res.status, 200, res.body);
      assert.equal(res.json.format, format);
      assert.equal(res.json.metadata.subject, "Zoë's daily summary: Nov 16");
      assert.match(JSON.stringify(res.json.content), /3 h 45 min tracked/);
    }
    const slack = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-16', format: 'slack' });
    assert.ok(Array.isArray(slack.json.content));
    const discord = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-16', format: 'discord' });
    assert.equal(typeof discord.json.content, 'object');
    assert.ok(Number.isInteger(discord.json.content.color));
  });

  for (const date of ['2026-11-1', '2026/11/18', '18.11.2026', '2026-02-30', 'yesterday', '']) {
    test(`date "${date}" is a 400 naming the field and the value`, async () => {
      const res = await fetchMessage(t.app, ZOE.summaries, { date });
      assert.deepEqual(
        [res.status, res.json],
        [
          400,
          {
            success: false,
            error: `date must be a date in the form YYYY-MM-DD (got "${date}")`,
            message: `date must be a date in the form YYYY-MM-DD (got "${date}")`,
          },
        ],
      );
    });
  }

  test('a date that is not a string in a POST body is a 400', async () => {
    const res = await call(t.app, 'POST', '/message', { key: ZOE.summaries, body: { date: 20261118 } });
    assert.deepEqual(
      [res.status, res.json],
      [400, { success: false, error: 'date must be of type string', message: 'date must be of type string' }],
    );
  });

  test('an unknown level or format is a 400 naming the field and the value', async () => {
    const level = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', level: 'decade' });
    assert.deepEqual(
      [level.status, level.json],
      [
        400,
        {
          success: false,
          error: 'level must be one of day, week, month, quarter, year (got "decade")',
          message: 'level must be one of day, week, month, quarter, year (got "decade")',
        },
      ],
    );
    const format = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', format: 'pdf' }, 'POST');
    assert.deepEqual(
      [format.status, format.json],
      [
        400,
        {
          success: false,
          error: 'format must be one of html, text, slack, discord (got "pdf")',
          message: 'format must be one of html, text, slack, discord (got "pdf")',
        },
      ],
    );
    const upper = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', level: 'DAY' });
    assert.equal(upper.status, 400);
  });

  test('404 for today, a future date, a day without tracked time and a day with only a comment', async () => {
    for (const date of ['2026-11-19', '2026-12-01', '2026-11-15', '2026-11-21']) {
      const res = await fetchMessage(t.app, ZOE.summaries, { date });
      assert.deepEqual([res.status, res.json], [404, NO_SUMMARY], date);
    }
  });

  test('404 for a week, month, quarter or year that has not ended yet', async () => {
    for (const level of ['week', 'month', 'quarter', 'year']) {
      const res = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', level });
      assert.deepEqual([res.status, res.json], [404, NO_SUMMARY], level);
    }
    const ended = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-12', level: 'week' });
    assert.equal(ended.status, 200, ended.body);
    assert.equal(ended.json.metadata.subject, "Zoë's weekly summary: Nov 9 – Nov 15");
  });

  test('reports:read also grants /message; other scopes get 403 naming summaries:read', async () => {
    const reports = await fetchMessage(t.app, ZOE.reports, { date: '2026-11-18' });
    assert.equal(reports.status, 200, reports.body);
    const userOnly = await fetchMessage(t.app, ZOE.userOnly, { date: '2026-11-18' });
    assert.deepEqual(
      [userOnly.status, userOnly.json],
      [
        403,
        {
          success: false,
          error: 'API key missing required scope: summaries:read',
          message: 'API key missing required scope: summaries:read',
        },
      ],
    );
    const post = await call(t.app, 'POST', '/message', { key: ZOE.userOnly, body: { date: 'not a date' } });
    assert.equal(post.status, 403);
  });

  test('works on the free plan', async () => {
    const plan = await t.storage.db
      .selectFrom('users')
      .select('plan')
      .where('id', '=', 'u_zoe')
      .executeTakeFirstOrThrow();
    assert.equal(plan.plan, 'free');
    assert.equal((await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18' })).status, 200);
    const carol = await fetchMessage(t.app, KEYS.carolFree, { date: '2026-11-18' });
    assert.deepEqual([carol.status, carol.json], [404, NO_SUMMARY]);
  });

  test('401 without a key, 405 for other methods', async () => {
    assert.deepEqual((await call(t.app, 'GET', '/message')).json, {
      success: false,
      error: 'Missing API key',
      message: 'Missing API key',
    });
    for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
      const res = await call(t.app, method, '/message', { key: ZOE.summaries });
      assert.deepEqual(
        [res.status, res.json],
        [405, { success: false, error: 'Method Not Allowed', message: 'Method Not Allowed' }],
      );
    }
  });

  test("a key reads its owner's summaries only, named by the owner's first name", async () => {
    const alice = await fetchMessage(t.app, KEYS.aliceAll, { date: '2026-11-18', format: 'text' });
    assert.equal(alice.status, 200, alice.body);
    assert.equal(alice.json.metadata.subject, "Alice's daily summary: Nov 18");
    assert.doesNotMatch(alice.json.content, /Zoë|Customer call/);
    assert.match(alice.json.content, /Design rate limiter/);
    const bob = await fetchMessage(t.app, KEYS.bob, { date: '2026-11-18', format: 'text' });
    assert.equal(bob.json.metadata.subject, "Bob's daily summary: Nov 18");
  });

  test('the first name follows the /user name: a changed settings name shows at once', async () => {
    await t.storage.db.updateTable('users').set({ name: 'Zed Quinn' }).where('id', '=', 'u_zoe').execute();
    const res = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18' });
    await t.storage.db.updateTable('users').set({ name: "Zoë O'Brien" }).where('id', '=', 'u_zoe').execute();
    assert.equal(res.json.metadata.subject, "Zed's daily summary: Nov 18");
  });
});

forEachDialect("/message in the caller's calendar", (dialect) => {
  let t: TestApp;
  /** 2026-11-19 07:00 UTC is still Nov 18 (23:00) in Los Angeles. */
  const LATE_NOV_18_LA = Date.parse('2026-11-19T07:00:00Z');
  before(async () => {
    t = await createTestApp(dialect, { dataset: SUMMARIES_FIXTURE, now: LATE_NOV_18_LA });
  });
  after(() => t.close());

  test('"yesterday" is the day before today in the caller\'s timezone', async () => {
    await generate(t.storage, LATE_NOV_18_LA);
    const res = await fetchMessage(t.app, ZOE.summaries);
    assert.equal(res.status, 200, res.body);
    assert.equal(res.json.metadata.subject, "Zoë's daily summary: Nov 17");
    // Nov 18 is still today in Los Angeles.
    assert.equal((await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18' })).status, 404);
  });

  test("weeks follow the user's week start", async () => {
    const afterSunday = Date.parse('2026-11-24T20:00:00Z');
    // The week is asked for once it has ended, as it was built.
    t.setNow(afterSunday);
    await generate(t.storage, afterSunday);
    const monday = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', level: 'week', format: 'text' });
    assert.equal(monday.json.metadata.subject, "Zoë's weekly summary: Nov 16 – Nov 22");

    await t.storage.db.updateTable('users').set({ week_start: 'sunday' }).where('id', '=', 'u_zoe').execute();
    await generate(t.storage, afterSunday);
    const sunday = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', level: 'week', format: 'text' });
    assert.equal(sunday.status, 200, sunday.body);
    assert.equal(sunday.json.metadata.subject, "Zoë's weekly summary: Nov 15 – Nov 21");
    const weeks = await t.storage.db
      .selectFrom('summaries')
      .select('period_start')
      .where('user_id', '=', 'u_zoe')
      .where('level', '=', 'week')
      .where('period_start', '>=', '2026-11-01')
      .orderBy('period_start')
      .execute();
    // The Monday weeks are gone; only Sunday weeks remain.
    assert.deepEqual(
      weeks.map((w) => w.period_start),
      ['2026-11-08', '2026-11-15'],
    );
  });
});
