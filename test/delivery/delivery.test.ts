/**
 * Summary delivery end to end on both databases (docs/delivery.md): summaries built by the
 * generator are delivered by the worker to stand-in Slack, Discord and webhook receivers on
 * loopback; rebuilt ones only where updates were asked for; retries on the Standard Webhooks
 * schedule with the same webhook-id; Retry-After; timeouts; 410 and 3 days of failures disable a
 * destination, with the reason shown; redirects are not followed; the test action.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { call, forEachDialect } from '../helper.ts';
import {
  ANN,
  DAY,
  type DeliveryWorld,
  HOUR,
  MINUTE,
  MONDAY,
  type Receiver,
  SECOND,
  attemptsOf,
  createDestination,
  destinationOf,
  openWorld,
  startReceiver,
} from './receivers.ts';

const iso = (ms: number) => new Date(ms).toISOString();

forEachDialect('summary delivery', (dialect) => {
  let w: DeliveryWorld;
  let slack: Receiver;
  let discord: Receiver;
  let webhook: Receiver;
  let receivers: Receiver[];
  beforeEach(async () => {
    w = await openWorld(dialect);
    receivers = await Promise.all([startReceiver('slack'), startReceiver('discord'), startReceiver('webhook')]);
    [slack, discord, webhook] = receivers as [Receiver, Receiver, Receiver];
  });
  afterEach(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await w.close();
  });

  /** Ann records time on `date` through the API, as late data arrives. */
  const record = async (id: string, date: string, minutes: number, headline = 'Late work') => {
    const res = await call(w.app, 'POST', '/activities', {
      key: ANN,
      body: {
        activities: [{ id, start: `${date}T14:00:00Z`, durationMinutes: minutes, headline, projectId: 'p_site' }],
      },
    });
    assert.equal(res.status, 200, res.body);
  };
  /** Runs the worker at each next attempt's time until nothing of `id` is pending. */
  const untilSettled = async (id: string, steps = 30) => {
    for (let i = 0; i < steps; i++) {
      const next = (await attemptsOf(w, id)).at(-1)?.nextAttemptAt as string | null | undefined;
      if (!next) return;
      w.setNow(Date.parse(next));
      assert.ok((await w.deliver()) > 0, `an attempt was due at ${next}`);
    }
    assert.fail('still pending');
  };
  const bodies = (r: Receiver) => r.requests.map((q) => q.json);

  test('a built summary is delivered once to each enabled destination of its level', async () => {
    const daily = await createDestination(w, slack, { levels: ['day'] });
    const both = await createDestination(w, discord, { levels: ['day', 'week'] });
    const hook = await createDestination(w, webhook, { levels: ['week', 'day'], updates: true });
    const monthly = await startReceiver('webhook');
    receivers.push(monthly);
    await createDestination(w, monthly, { levels: ['month', 'quarter', 'year'] });
    const paused = await startReceiver('slack');
    receivers.push(paused);
    const pausedId = (await createDestination(w, paused, { levels: ['day', 'week'] })).id;
    assert.equal(
      (await call(w.app, 'PATCH', `/destinations/${pausedId}`, { key: ANN, body: { enabled: false } })).status,
      200,
    );

    const stats = await w.generate();
    // Ann's days of 19 and 20 November and her week of 16 November; Ben's are not hers to deliver.
    assert.equal(stats.deliveriesQueued, 2 + 3 + 3);
    assert.equal(await w.deliver(), 8);
    assert.equal(await w.deliver(), 0, 'nothing is delivered twice');

    assert.deepEqual(
      bodies(slack)
        .map((b) => b.text)
        .sort(),
      ["Ann's daily summary: Nov 19", "Ann's daily summary: Nov 20"],
    );
    for (const b of bodies(slack)) assert.ok(b.blocks.length > 0);
    assert.deepEqual(
      bodies(discord)
        .map((b) => b.embeds[0].title)
        .sort(),
      ["Ann's daily summary: Nov 19", "Ann's daily summary: Nov 20", "Ann's weekly summary: Nov 16 – Nov 22"],
    );
    for (const b of bodies(discord)) assert.deepEqual(b.allowed_mentions, { parse: [] });
    assert.equal(monthly.requests.length, 0, 'no month has ended');
    assert.equal(paused.requests.length, 0, 'a paused destination is sent nothing');

    assert.equal(webhook.requests.length, 3);
    assert.deepEqual(
      webhook.requests.map((r) => r.signatureProblem),
      [null, null, null],
    );
    assert.equal(new Set(webhook.requests.map((r) => r.headers['webhook-id'])).size, 3);
    const week = bodies(webhook).find((b) => b.data.level === 'week');
    assert.equal(week.type, 'summary.created');
    assert.equal(week.timestamp, iso(MONDAY));
    assert.deepEqual(
      {
        userId: week.data.userId,
        level: week.data.level,
        start: week.data.start,
        end: week.data.end,
        timezone: week.data.timezone,
        subject: week.data.subject,
        totalMinutes: week.data.totalMinutes,
        trackedDays: week.data.trackedDays,
        builtAt: week.data.builtAt,
      },
      {
        userId: 'u_ann',
        level: 'week',
        start: '2026-11-16',
        end: '2026-11-22',
        timezone: 'UTC',
        subject: "Ann's weekly summary: Nov 16 – Nov 22",
        totalMinutes: 95,
        trackedDays: 2,
        builtAt: iso(MONDAY),
      },
    );
    assert.match(week.data.formats.html, /<html|<table|<h1|<p/i);
    assert.match(week.data.formats.text, /^Ann's weekly summary: Nov 16 – Nov 22/);
    assert.match(week.data.formats.text, /Website/);
    assert.ok(Array.isArray(week.data.formats.slack) && week.data.formats.slack.length > 0);
    assert.equal(week.data.formats.discord.title, "Ann's weekly summary: Nov 16 – Nov 22");
    assert.deepEqual(week.data.summary.projects, [{ name: 'Website', minutes: 95 }]);

    // What Ann sees.
    const listed = await attemptsOf(w, hook.id);
    assert.deepEqual(
      listed
        .map((a) => [a.event, a.level, a.periodStart, a.attempt, a.outcome, a.deliveryStatus, a.nextAttemptAt])
        .sort(),
      [
        ['summary.created', 'day', '2026-11-19', 1, 'delivered', 'delivered', null],
        ['summary.created', 'day', '2026-11-20', 1, 'delivered', 'delivered', null],
        ['summary.created', 'week', '2026-11-16', 1, 'delivered', 'delivered', null],
      ],
    );
    assert.deepEqual(
      new Set(listed.map((a) => a.deliveryId)),
      new Set(webhook.requests.map((r) => r.headers['webhook-id'])),
      'the listing names each delivery by its webhook-id',
    );
    assert.equal((await destinationOf(w, daily.id)).lastDeliveredAt, iso(MONDAY));
    assert.equal((await destinationOf(w, both.id)).failingSince, null);

    // Enabled again, the paused destination does not get what was built meanwhile.
    await call(w.app, 'PATCH', `/destinations/${pausedId}`, { key: ANN, body: { enabled: true } });
    w.advance(HOUR);
    assert.equal(await w.deliver(), 0);
    assert.equal(paused.requests.length, 0);
  });

  test('a rebuilt summary goes again, as summary.updated, only where updates were asked for, and only if it changed', async () => {
    await createDestination(w, slack, { levels: ['day'] });
    const hook = await createDestination(w, webhook, { levels: ['day'], updates: true });
    await w.generate();
    assert.equal(await w.deliver(), 4);
    const firstId = webhook.requests.find((r) => r.json.data.start === '2026-11-20')?.headers['webhook-id'];

    w.advance(HOUR);
    await record('a_late', '2026-11-20', 20);
    w.advance(MINUTE);
    const rebuilt = await w.generate();
    assert.ok(rebuilt.built >= 2, 'the day and its week are rebuilt');
    assert.equal(rebuilt.deliveriesQueued, 1);
    assert.equal(await w.deliver(), 1);
    assert.equal(slack.requests.length, 2, 'Slack asked for no updates');
    assert.equal(webhook.requests.length, 3);
    const update = webhook.requests[2]!;
    assert.equal(update.signatureProblem, null);
    assert.notEqual(update.headers['webhook-id'], firstId, 'an update is a delivery of its own');
    assert.equal(update.json.type, 'summary.updated');
    assert.equal(update.json.data.start, '2026-11-20');
    assert.equal(update.json.data.totalMinutes, 70);
    assert.equal(update.json.timestamp, iso(w.now()));
    assert.equal((await attemptsOf(w, hook.id)).at(-1).event, 'summary.updated');

    // A change that leaves the summary as it was (a headline is not in it) is not delivered.
    w.advance(HOUR);
    await record('a_late', '2026-11-20', 20, 'Late work, renamed');
    w.advance(MINUTE);
    const same = await w.generate();
    assert.ok(same.built >= 1, 'the day was rebuilt');
    assert.equal(same.deliveriesQueued, 0);
    assert.equal(await w.deliver(), 0);
    assert.equal(webhook.requests.length, 3);
    assert.equal(slack.requests.length, 2);
  });

  test('a newer version of a summary supersedes one still waiting: the receiver gets only the newer', async () => {
    const hook = await createDestination(w, webhook, { levels: ['week'], updates: true });
    webhook.script({ status: 500, body: 'down' });
    await w.generate();
    assert.equal(await w.deliver(), 1);
    const waiting = (await attemptsOf(w, hook.id)).at(-1);
    assert.equal(waiting.deliveryStatus, 'pending');

    w.advance(MINUTE);
    await record('a_late', '2026-11-20', 20);
    assert.equal((await w.generate()).deliveriesQueued, 1);
    assert.equal(await w.deliver(), 1, 'only the newer version is attempted');
    const listed = await attemptsOf(w, hook.id);
    assert.deepEqual(
      listed.map((a) => [a.deliveryId, a.event, a.outcome, a.deliveryStatus]),
      [
        [waiting.deliveryId, 'summary.created', 'failed', 'superseded'],
        [listed[1].deliveryId, 'summary.updated', 'delivered', 'delivered'],
      ],
    );
    assert.notEqual(listed[1].deliveryId, waiting.deliveryId);
    w.advance(DAY);
    assert.equal(await w.deliver(), 0, 'the superseded one is never tried again');
    assert.equal(webhook.requests.length, 2);
    assert.equal(webhook.requests[1]!.json.data.totalMinutes, 115);
  });

  test('summaries built before a destination existed are not delivered to it', async () => {
    await w.generate();
    const hook = await createDestination(w, webhook, { levels: ['day', 'week'] });
    w.advance(HOUR);
    await w.generate();
    assert.equal(await w.deliver(), 0);
    assert.equal(webhook.requests.length, 0);
    assert.deepEqual(await attemptsOf(w, hook.id), []);
  });

  test('deliveries waiting while a destination is paused go out once it is enabled again', async () => {
    const hook = await createDestination(w, slack, { levels: ['week'] });
    slack.script({ status: 500 });
    await w.generate();
    assert.equal(await w.deliver(), 1);
    const paused = await call(w.app, 'PATCH', `/destinations/${hook.id}`, { key: ANN, body: { enabled: false } });
    assert.equal(paused.json.destination.enabled, false);
    w.advance(HOUR);
    assert.equal(await w.deliver(), 0, 'paused: its waiting delivery is not attempted');
    assert.equal(slack.requests.length, 1);
    assert.equal((await attemptsOf(w, hook.id)).at(-1).deliveryStatus, 'pending');
    await call(w.app, 'PATCH', `/destinations/${hook.id}`, { key: ANN, body: { enabled: true } });
    assert.equal(await w.deliver(), 1);
    assert.equal(slack.requests.length, 2);
    assert.deepEqual(
      (await attemptsOf(w, hook.id)).map((a) => [a.attempt, a.outcome, a.deliveryStatus]),
      [
        [1, 'failed', 'delivered'],
        [2, 'delivered', 'delivered'],
      ],
    );
  });

  test('a summary of a period that ended more than 7 days before it was built is not delivered', async () => {
    const hook = await createDestination(w, webhook, { levels: ['day', 'week', 'month'] });
    // Friday 27 November: the 20th ended 7 days before, the 19th 8 days.
    w.setNow(Date.parse('2026-11-27T12:00:00Z'));
    const stats = await w.generate();
    assert.ok(stats.built >= 3);
    assert.equal(await w.deliver(), 2);
    assert.deepEqual(webhook.requests.map((r) => `${r.json.data.level} ${r.json.data.start}`).sort(), [
      'day 2026-11-20',
      'week 2026-11-16',
    ]);
    // A month built 10 days after it ended (late data imported in December) is not delivered.
    await record('a_nov', '2026-11-25', 30);
    w.setNow(Date.parse('2026-12-10T12:00:00Z'));
    const late = await w.generate();
    assert.ok(late.built >= 3, 'November, its last week and the 25th are built');
    assert.equal(late.deliveriesQueued, 0);
    assert.equal(await w.deliver(), 0);
    assert.equal((await attemptsOf(w, hook.id)).length, 2);
  });

  test('a delivery is retried through 500s on the schedule with the same webhook-id, each attempt signed afresh', async () => {
    const hook = await createDestination(w, webhook, { levels: ['week'] });
    webhook.script(
      { status: 500, body: 'database on fire' },
      { status: 500, body: 'still on fire' },
      { status: 503, body: 'maintenance' },
    );
    await w.generate();
    const t0 = w.now();
    assert.equal(await w.deliver(), 1);
    let listed = await attemptsOf(w, hook.id);
    assert.deepEqual(
      [listed[0].attempt, listed[0].outcome, listed[0].statusCode, listed[0].error, listed[0].responseExcerpt],
      [1, 'failed', 500, 'HTTP 500 Internal Server Error', 'database on fire'],
    );
    assert.equal(listed[0].deliveryStatus, 'pending');
    assert.equal(listed[0].nextAttemptAt, iso(t0 + 5 * SECOND));
    assert.equal((await destinationOf(w, hook.id)).failingSince, iso(t0));

    w.setNow(t0 + 4 * SECOND);
    assert.equal(await w.deliver(), 0, 'not due before 5 s');
    w.setNow(t0 + 5 * SECOND);
    assert.equal(await w.deliver(), 1);
    listed = await attemptsOf(w, hook.id);
    assert.equal(listed[1].nextAttemptAt, iso(t0 + 5 * SECOND + 5 * MINUTE));
    w.setNow(t0 + 5 * SECOND + 5 * MINUTE - 1);
    assert.equal(await w.deliver(), 0, 'not due before 5 min');
    w.advance(1);
    assert.equal(await w.deliver(), 1);
    listed = await attemptsOf(w, hook.id);
    assert.deepEqual([listed[2].statusCode, listed[2].error], [503, 'HTTP 503 Service Unavailable']);
    assert.equal(listed[2].nextAttemptAt, iso(w.now() + 30 * MINUTE));
    w.advance(30 * MINUTE);
    assert.equal(await w.deliver(), 1);

    listed = await attemptsOf(w, hook.id);
    assert.deepEqual(
      listed.map((a) => [a.attempt, a.outcome, a.deliveryStatus, a.nextAttemptAt]),
      [
        [1, 'failed', 'delivered', null],
        [2, 'failed', 'delivered', null],
        [3, 'failed', 'delivered', null],
        [4, 'delivered', 'delivered', null],
      ],
    );
    assert.equal(new Set(listed.map((a) => a.deliveryId)).size, 1);
    assert.equal(webhook.requests.length, 4);
    assert.deepEqual([...webhook.countsById().values()], [4], 'one webhook-id on every attempt');
    assert.deepEqual(webhook.countsById(), new Map([[listed[0].deliveryId, 4]]));
    for (const r of webhook.requests) {
      assert.equal(r.signatureProblem, null);
      assert.equal(r.body, webhook.requests[0]!.body, 'the same body on every attempt');
      // The attempt's own time on the wall clock, not the pinned clock that scheduled it.
      assert.ok(Math.abs(Number(r.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
    }
    const shown = await destinationOf(w, hook.id);
    assert.deepEqual([shown.failingSince, shown.lastDeliveredAt, shown.enabled], [null, iso(w.now()), true]);
  });

  test('a 429 waits as long as its Retry-After says, not the schedule’s step', async () => {
    const hook = await createDestination(w, webhook, { levels: ['week'] });
    webhook.script({ status: 500 }, { status: 429, headers: { 'retry-after': '120' }, body: 'slow down' });
    await w.generate();
    assert.equal(await w.deliver(), 1);
    w.advance(5 * SECOND);
    assert.equal(await w.deliver(), 1);
    const limited = (await attemptsOf(w, hook.id)).at(-1);
    assert.deepEqual(
      [limited.outcome, limited.statusCode, limited.error, limited.nextAttemptAt],
      ['rate-limited', 429, 'HTTP 429 Too Many Requests', iso(w.now() + 120 * SECOND)],
    );
    w.advance(119 * SECOND);
    assert.equal(await w.deliver(), 0);
    w.advance(SECOND);
    assert.equal(await w.deliver(), 1);
    assert.equal((await attemptsOf(w, hook.id)).at(-1).outcome, 'delivered');
    assert.deepEqual([...webhook.countsById().values()], [3]);
  });

  test('Retry-After may be an HTTP date, and is honoured from 1 s to 24 h', async () => {
    const hook = await createDestination(w, webhook, { levels: ['week'] });
    await w.generate();
    const next = async () => Date.parse((await attemptsOf(w, hook.id)).at(-1).nextAttemptAt) - w.now();

    webhook.script({ status: 429, headers: { 'retry-after': new Date(Date.now() + 120_000).toUTCString() } });
    assert.equal(await w.deliver(), 1);
    // An HTTP date has whole seconds, read against the wall clock.
    const wait = await next();
    assert.ok(wait >= 118 * SECOND && wait <= 120 * SECOND, String(wait));

    w.advance(wait);
    webhook.script({ status: 429, headers: { 'retry-after': '0' } });
    assert.equal(await w.deliver(), 1);
    assert.equal(await next(), SECOND);

    w.advance(SECOND);
    webhook.script({ status: 429, headers: { 'retry-after': String(7 * 24 * 3600) } });
    assert.equal(await w.deliver(), 1);
    assert.equal(await next(), DAY);
    assert.deepEqual([...webhook.countsById().values()], [3]);
  });

  test('a receiver that does not answer holds one of the worker’s slots, not the others’ deliveries', async () => {
    const slow = await createDestination(w, webhook, { levels: ['week'] });
    webhook.script({ status: 500 }, { hang: true });
    await w.generate();
    assert.equal(await w.deliver(), 1);
    // Three summaries built later for another destination: due after the slow one's retry.
    const fast = await createDestination(w, slack, { levels: ['day'] });
    w.advance(MINUTE);
    for (const day of ['2026-11-17', '2026-11-18', '2026-11-21']) await record(`a_${day}`, day, 15);
    assert.equal((await w.generate()).deliveriesQueued, 3);

    const timeoutMs = 3000;
    assert.equal(await w.deliver({ timeoutMs, concurrency: 2 }), 4);
    const hung = webhook.requests[1]!;
    assert.equal(slack.requests.length, 3);
    // Long before the slow attempt's time limit ended (a batch would have waited for it).
    for (const r of slack.requests) assert.ok(r.at - hung.at < timeoutMs / 2, `${r.at - hung.at} ms after`);
    assert.equal((await attemptsOf(w, slow.id)).at(-1).outcome, 'timeout');
    assert.deepEqual(
      (await attemptsOf(w, fast.id)).map((a) => a.outcome),
      ['delivered', 'delivered', 'delivered'],
    );
  });

  test('an answer slower than the time limit is a timeout, tried again later', async () => {
    const hook = await createDestination(w, webhook, { levels: ['week'] });
    webhook.script({ hang: true }, { slowBodyMs: 10_000, status: 200 });
    await w.generate();
    assert.equal(await w.deliver({ timeoutMs: 1000 }), 1);
    const timedOut = (await attemptsOf(w, hook.id)).at(-1);
    assert.deepEqual(
      [timedOut.outcome, timedOut.statusCode, timedOut.error, timedOut.deliveryStatus],
      ['timeout', null, 'no answer within 1 s', 'pending'],
    );
    assert.ok(timedOut.durationMs >= 900 && timedOut.durationMs < 10_000, String(timedOut.durationMs));
    assert.equal(timedOut.nextAttemptAt, iso(w.now() + 5 * SECOND));
    // The limit is for the whole exchange: a 200 whose body trickles in is not waited for.
    w.advance(5 * SECOND);
    assert.equal(await w.deliver({ timeoutMs: 1000 }), 1);
    const trickled = (await attemptsOf(w, hook.id)).at(-1);
    assert.deepEqual(
      [trickled.outcome, trickled.error, trickled.deliveryStatus, trickled.nextAttemptAt],
      ['timeout', 'no answer within 1 s', 'pending', iso(w.now() + 5 * MINUTE)],
    );
    assert.ok(trickled.durationMs < 5000, String(trickled.durationMs));
    w.advance(5 * MINUTE);
    assert.equal(await w.deliver({ timeoutMs: 1000 }), 1);
    assert.equal((await attemptsOf(w, hook.id)).at(-1).outcome, 'delivered');
    assert.deepEqual([...webhook.countsById().values()], [3]);
  });

  test('a 410 disables the destination with the reason shown; enabling it again resumes deliveries', async () => {
    const hook = await createDestination(w, slack, { levels: ['week'] });
    slack.script({ status: 410, body: 'no_service' });
    await w.generate();
    assert.equal(await w.deliver(), 1);
    const gone = (await attemptsOf(w, hook.id)).at(-1);
    assert.deepEqual(
      [gone.outcome, gone.statusCode, gone.deliveryStatus, gone.nextAttemptAt, gone.responseExcerpt],
      ['gone', 410, 'failed', null, 'no_service'],
    );
    const disabled = await destinationOf(w, hook.id);
    assert.equal(disabled.enabled, false);
    assert.equal(
      disabled.disabledReason,
      `The destination answered 410 Gone on ${iso(MONDAY)}: it no longer accepts deliveries. Fix it and enable it again.`,
    );
    assert.equal(disabled.disabledAt, iso(MONDAY));
    const listed = await call(w.app, 'GET', '/destinations', { key: ANN });
    assert.equal(listed.json.destinations[0].disabledReason, disabled.disabledReason);

    // The next week's summary is not delivered while it is disabled.
    w.setNow(Date.parse('2026-11-30T12:00:00Z'));
    await record('a_next_week', '2026-11-24', 30);
    assert.equal((await w.generate()).deliveriesQueued, 0);
    assert.equal(await w.deliver(), 0);
    assert.equal(slack.requests.length, 1);

    const enabled = await call(w.app, 'PATCH', `/destinations/${hook.id}`, { key: ANN, body: { enabled: true } });
    assert.deepEqual(
      [enabled.json.destination.enabled, enabled.json.destination.disabledReason, enabled.json.destination.disabledAt],
      [true, null, null],
    );
    w.setNow(Date.parse('2026-12-07T12:00:00Z'));
    await record('a_week_after', '2026-12-01', 30);
    assert.equal((await w.generate()).deliveriesQueued, 1);
    assert.equal(await w.deliver(), 1);
    assert.equal(slack.requests.length, 2);
    assert.equal(slack.requests[1]!.json.text, "Ann's weekly summary: Nov 30 – Dec 6");
    assert.equal((await attemptsOf(w, hook.id)).at(-1).outcome, 'delivered');
  });

  test('a delivery failing for 3 days is given up; a destination failing for 3 days is disabled', async () => {
    const hook = await createDestination(w, discord, { levels: ['week'], updates: true });
    discord.script(...Array.from({ length: 20 }, () => ({ status: 502, body: 'bad gateway' })));
    await w.generate();
    const t0 = w.now();
    assert.equal(await w.deliver(), 1);
    await untilSettled(hook.id);
    const attempts = await attemptsOf(w, hook.id);
    // Immediately, 5 s, 5 min, 30 min, 2 h, 5 h, then every 10 h while the delivery is under 3 days old.
    const waits = [0, 5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR, 10 * HOUR];
    const expected: number[] = [];
    let at = t0;
    for (const wait of [...waits, 10 * HOUR, 10 * HOUR, 10 * HOUR]) {
      at += wait;
      if (at - t0 > 3 * DAY) break;
      expected.push(at);
    }
    assert.deepEqual(
      attempts.map((a) => a.attemptedAt),
      expected.map(iso),
    );
    const last = attempts.at(-1);
    assert.deepEqual(
      [last.attempt, last.deliveryStatus, last.nextAttemptAt, last.error],
      [expected.length, 'failed', null, 'HTTP 502 Bad Gateway'],
    );
    assert.equal(discord.requests.length, expected.length);
    let shown = await destinationOf(w, hook.id);
    assert.deepEqual([shown.enabled, shown.failingSince], [true, iso(t0)], 'failing for less than 3 days yet');

    // A rebuilt summary fails too: 2 s short of 3 days after the first failure the destination
    // stays enabled; its retry 5 s later, past 3 days, disables it.
    w.setNow(t0 + 3 * DAY - 2 * SECOND);
    await record('a_late', '2026-11-20', 30);
    assert.equal((await w.generate()).deliveriesQueued, 1);
    assert.equal(await w.deliver(), 1);
    shown = await destinationOf(w, hook.id);
    assert.deepEqual([shown.enabled, shown.disabledReason], [true, null]);
    w.advance(5 * SECOND);
    assert.equal(await w.deliver(), 1);
    shown = await destinationOf(w, hook.id);
    assert.equal(shown.enabled, false);
    assert.equal(
      shown.disabledReason,
      `Every delivery failed for 3 days (since ${iso(t0)}); the last error: HTTP 502 Bad Gateway. Fix it and enable it again.`,
    );
    assert.equal(shown.disabledAt, iso(w.now()));
    assert.equal((await attemptsOf(w, hook.id)).at(-1).event, 'summary.updated');
    // Disabled, its pending delivery waits.
    w.advance(DAY);
    assert.equal(await w.deliver(), 0);
  });

  test('a redirect is not followed, and an answer is kept as a short excerpt', async () => {
    const hook = await createDestination(w, webhook, { levels: ['week'] });
    const long = 'abcdefghij'.repeat(500);
    webhook.script({ status: 302, headers: { location: webhook.elsewhereUrl } }, { status: 500, body: long });
    await w.generate();
    assert.equal(await w.deliver(), 1);
    const redirected = (await attemptsOf(w, hook.id)).at(-1);
    assert.deepEqual(
      [redirected.outcome, redirected.statusCode, redirected.error, redirected.deliveryStatus],
      ['failed', 302, 'HTTP 302: redirects are not followed', 'pending'],
    );
    assert.equal(webhook.elsewhere.length, 0, 'the Location was never requested');

    w.advance(5 * SECOND);
    assert.equal(await w.deliver(), 1);
    const excerpt = (await attemptsOf(w, hook.id)).at(-1).responseExcerpt as string;
    assert.equal(excerpt, `${long.slice(0, 200)}…`, 'the first 200 characters, marked as cut');
    assert.equal(webhook.elsewhere.length, 0);
  });

  test('a finished delivery is listed for 30 days after it finished, then forgotten', async () => {
    const early = await createDestination(w, slack, { levels: ['week'] });
    const late = await createDestination(w, webhook, { levels: ['week'] });
    webhook.script({ status: 500 });
    await w.generate();
    assert.equal(await w.deliver(), 2);
    // The webhook's retry finishes its delivery 10 days later (the worker was not running).
    w.setNow(MONDAY + 10 * DAY);
    assert.equal(await w.deliver(), 1);
    w.setNow(MONDAY + 30 * DAY - MINUTE);
    await w.deliver();
    assert.equal((await attemptsOf(w, early.id)).length, 1, 'kept for 30 days');
    w.setNow(MONDAY + 30 * DAY + MINUTE);
    await w.deliver();
    assert.deepEqual(await attemptsOf(w, early.id), []);
    assert.deepEqual(
      (await attemptsOf(w, late.id)).map((a) => [a.outcome, a.deliveryStatus]),
      [
        ['failed', 'delivered'],
        ['delivered', 'delivered'],
      ],
    );
    w.setNow(MONDAY + 40 * DAY + MINUTE);
    await w.deliver();
    assert.deepEqual(await attemptsOf(w, late.id), []);
  });

  test('the test action sends a sample now, answers how it went, and is never retried', async () => {
    const hook = await createDestination(w, webhook, { levels: ['week'] });
    const sent = await call(w.app, 'POST', `/destinations/${hook.id}/test`, { key: ANN });
    assert.equal(sent.status, 200, sent.body);
    assert.equal(sent.json.delivered, true);
    const { deliveryId, durationMs, ...attempt } = sent.json.attempt;
    assert.deepEqual(attempt, {
      attempt: 1,
      event: 'destination.test',
      level: null,
      periodStart: null,
      attemptedAt: iso(MONDAY),
      outcome: 'delivered',
      statusCode: 200,
      error: null,
      responseExcerpt: null,
      deliveryStatus: 'delivered',
      nextAttemptAt: null,
    });
    assert.equal(webhook.requests.length, 1);
    const received = webhook.requests[0]!;
    assert.equal(received.signatureProblem, null);
    assert.equal(received.headers['webhook-id'], deliveryId);
    assert.equal(received.json.type, 'destination.test');
    assert.match(received.json.data.subject, /^Test: Ann's daily summary: Nov 22$/);

    // Slack and Discord take the sample in their own shapes (their stand-ins answer 400 otherwise).
    for (const r of [slack, discord]) {
      const made = await createDestination(w, r);
      const res = await call(w.app, 'POST', `/destinations/${made.id}/test`, { key: ANN });
      assert.deepEqual([res.json.delivered, res.json.attempt.statusCode], [true, r.kind === 'slack' ? 200 : 204]);
      assert.equal(r.requests.length, 1);
    }

    webhook.script({ status: 500, body: 'nope' });
    w.advance(MINUTE);
    const failed = await call(w.app, 'POST', `/destinations/${hook.id}/test`, { key: ANN });
    assert.equal(failed.status, 200);
    assert.equal(failed.json.delivered, false);
    assert.deepEqual(
      [
        failed.json.attempt.outcome,
        failed.json.attempt.statusCode,
        failed.json.attempt.error,
        failed.json.attempt.responseExcerpt,
        failed.json.attempt.deliveryStatus,
        failed.json.attempt.nextAttemptAt,
      ],
      ['failed', 500, 'HTTP 500 Internal Server Error', 'nope', 'failed', null],
    );
    const listed = await attemptsOf(w, hook.id);
    assert.deepEqual(
      listed.map((a) => [a.deliveryId, a.event, a.outcome, a.deliveryStatus]),
      [
        [deliveryId, 'destination.test', 'delivered', 'delivered'],
        [failed.json.attempt.deliveryId, 'destination.test', 'failed', 'failed'],
      ],
    );
    // Not retried, and the destination's state is not touched by a test.
    w.advance(DAY);
    assert.equal(await w.deliver(), 0);
    assert.equal(webhook.requests.length, 2);
    const shown = await destinationOf(w, hook.id);
    assert.deepEqual([shown.enabled, shown.failingSince, shown.lastDeliveredAt], [true, null, null]);
  });
});

forEachDialect('delivery metrics', (dialect) => {
  test('GET /metrics counts delivery attempts by kind and outcome, test sends included', async () => {
    const token = 'delivery-metrics-token-0123456789abcdef';
    const w = await openWorld(dialect, { config: { metricsToken: token }, metrics: true });
    const receivers = await Promise.all([startReceiver('slack'), startReceiver('webhook')]);
    const [slack, webhook] = receivers as [Receiver, Receiver];
    try {
      const slackDestination = await createDestination(w, slack, { levels: ['day'] });
      await createDestination(w, webhook, { levels: ['week'] });
      webhook.script({ status: 500 }, { status: 429, headers: { 'retry-after': '1' } });
      await w.generate();
      assert.equal(await w.deliver(), 3);
      w.advance(5 * SECOND);
      assert.equal(await w.deliver(), 1);
      w.advance(SECOND);
      assert.equal(await w.deliver(), 1);
      slack.script({ status: 404 });
      const tried = await call(w.app, 'POST', `/destinations/${slackDestination.id}/test`, { key: ANN });
      assert.equal(tried.json.attempt.outcome, 'failed');
      const res = await w.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${token}` } });
      assert.equal(res.statusCode, 200);
      const lines = res.body.split('\n').filter((l) => l.startsWith('daybook_delivery_attempts_total{'));
      assert.deepEqual(lines.sort(), [
        'daybook_delivery_attempts_total{kind="slack",outcome="delivered"} 2',
        'daybook_delivery_attempts_total{kind="slack",outcome="failed"} 1',
        'daybook_delivery_attempts_total{kind="webhook",outcome="delivered"} 1',
        'daybook_delivery_attempts_total{kind="webhook",outcome="failed"} 1',
        'daybook_delivery_attempts_total{kind="webhook",outcome="rate-limited"} 1',
      ]);
    } finally {
      await Promise.all(receivers.map((r) => r.close()));
      await w.close();
    }
  });
});
