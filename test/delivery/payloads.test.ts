/**
 * What Slack and Discord are sent stays inside their published limits (test/summaries/
 * platform-limits.ts) on summaries far too big for them — 400 tasks with 300-character titles, 60
 * long project names, 40 categories — delivered through the worker to the stand-in receivers;
 * and no text of the user's pings anyone on Discord.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { forEachDialect } from '../helper.ts';
import { assertValidDiscordEmbed, assertValidSlackBlocks } from '../summaries/platform-limits.ts';
import { type DeliveryWorld, type Receiver, createDestination, openWorld, startReceiver, world } from './receivers.ts';

const TASKS = 400;
const PROJECTS = 60;
const CATEGORIES = 40;

function title(i: number): string {
  const head = `Task ${String(i).padStart(3, '0')} @everyone <@${100 + i}> & <b>*bold*</b> 🚀 `;
  return head + 'long title words '.repeat(20).slice(0, 300 - head.length);
}

/** The world with a Friday of 400 tasks in 60 projects for Ann. */
function crowdedWorld() {
  const dayStart = Date.parse('2026-11-20T00:00:00Z');
  return {
    ...world,
    categories: Array.from({ length: CATEGORIES }, (_, c) => ({
      id: `c_many_${c}`,
      name: `Category ${c} & <more> ${'c'.repeat(75)}`,
      emoji: '🧪',
    })),
    projects: [
      ...world.projects,
      ...Array.from({ length: PROJECTS }, (_, p) => ({
        id: `p_many_${p}`,
        name: `Project ${p} @here & <co> ${'p'.repeat(70)}`,
        createdBy: 'u_ann',
      })),
    ],
    tasks: Array.from({ length: TASKS }, (_, i) => ({
      id: `k_many_${i}`,
      userId: 'u_ann',
      date: '2026-11-20',
      title: title(i),
      projectId: `p_many_${i % PROJECTS}`,
    })),
    activities: [
      ...world.activities.filter((a) => a.userId !== 'u_ann'),
      ...Array.from({ length: TASKS }, (_, i) => ({
        id: `a_many_${i}`,
        userId: 'u_ann',
        start: new Date(dayStart + i * 3 * 60_000).toISOString(),
        durationMinutes: (i % 3) + 1,
        headline: `Work ${i}`,
        taskId: `k_many_${i}`,
        categoryId: `c_many_${i % CATEGORIES}`,
      })),
    ],
    dayComments: [
      { userId: 'u_ann', date: '2026-11-20', comment: 'Ping @everyone <@&42> '.padEnd(5000, ' long comment') },
    ],
  };
}

forEachDialect('delivered Slack and Discord payloads', (dialect) => {
  let w: DeliveryWorld;
  let receivers: Receiver[];
  before(async () => {
    w = await openWorld(dialect, { dataset: crowdedWorld() });
    receivers = await Promise.all([startReceiver('slack'), startReceiver('discord'), startReceiver('webhook')]);
  });
  after(async () => {
    await Promise.all((receivers ?? []).map((r) => r.close()));
    await w?.close();
  });

  test('a summary far too big for a chat message arrives within every published limit, pinging no one', async () => {
    const [slack, discord, webhook] = receivers as [Receiver, Receiver, Receiver];
    for (const r of receivers) await createDestination(w, r, { levels: ['day', 'week'] });
    await w.generate();
    assert.equal(await w.deliver(), 6);
    // The day of 400 tasks and its week, to each.
    for (const r of receivers) assert.equal(r.requests.length, 2, r.kind);

    for (const { json } of slack.requests) {
      assertValidSlackBlocks(json.blocks);
      assert.match(json.text, /^Ann's (daily|weekly) summary: /);
      assert.ok(json.text.length <= 150);
      assert.match(JSON.stringify(json.blocks), /more/, 'says what it left out');
    }
    for (const { json } of discord.requests) {
      assert.equal(json.embeds.length, 1);
      assertValidDiscordEmbed(json.embeds[0]);
      assert.deepEqual(json.allowed_mentions, { parse: [] });
      assert.equal(json.content, undefined, 'nothing outside the embed');
    }
    const day = discord.requests.find((r) => r.json.embeds[0].title.includes('daily'));
    assert.match(JSON.stringify(day?.json.embeds[0]), /@everyone/, 'the user’s text is shown, not pinged');

    // The webhook's copies of the chat formats are the same, within the same limits.
    for (const { json, signatureProblem } of webhook.requests) {
      assert.equal(signatureProblem, null);
      assertValidSlackBlocks(json.data.formats.slack);
      assertValidDiscordEmbed(json.data.formats.discord);
      assert.equal(json.data.summary.tasks.length > 0, true);
    }
    const dayHook = webhook.requests.find((r) => r.json.data.level === 'day');
    const daySlack = slack.requests.find((r) => /daily/.test(r.json.text));
    assert.deepEqual(dayHook?.json.data.formats.slack, daySlack?.json.blocks);
    assert.deepEqual(dayHook?.json.data.formats.discord, day?.json.embeds[0]);
  });
});
