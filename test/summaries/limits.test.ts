/**
 * Slack and Discord limits (docs/api.md, "GET / POST /message") on a day far too big for them: 400 tasks with
 * 300-character titles, 60 long project names, 40 categories, 5000-character comments and a
 * very long first name. Every message must stay inside every limit and say what it left out.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type TestApp, createTestApp, forEachDialect } from '../helper.ts';
import { fetchMessage, generate } from './support.ts';
import { discordEmbedProblems, slackBlockProblems } from './platform-limits.ts';

const KEY = 'dbk_summaries_many_0123456789abcdef';
const TASKS = 400;
const PROJECTS = 60;
/** The longest name a dataset allows (200 characters), all one word. */
const LONG_FIRST_NAME = `Bartholomew${'x'.repeat(189)}`;
const NOW = Date.parse('2027-01-02T12:00:00Z');

function title(i: number): string {
  const head = `Task ${String(i).padStart(3, '0')} <b>&amp; *bold* _x_ 🚀 `;
  return head + 'long title words '.repeat(20).slice(0, 300 - head.length);
}

function writeDataset(dir: string): string {
  const lines: object[] = [
    { type: 'user', id: 'u_many', email: 'many@example.com', name: LONG_FIRST_NAME, timezone: 'UTC', plan: 'core' },
    { type: 'apiKey', id: 'key_many', userId: 'u_many', name: 'limits', key: KEY, scopes: ['summaries:read'] },
  ];
  for (let c = 0; c < 40; c++) {
    lines.push({ type: 'category', id: `c_many_${c}`, name: `Category ${c} & <more> ${'c'.repeat(75)}`, emoji: '🧪' });
  }
  for (let p = 0; p < PROJECTS; p++) {
    lines.push({
      type: 'project',
      id: `p_many_${p}`,
      name: `Project ${p} & <co> ${'p'.repeat(80)}`,
      createdBy: 'u_many',
    });
  }
  for (let i = 0; i < TASKS; i++) {
    lines.push({
      type: 'task',
      id: `k_many_${i}`,
      userId: 'u_many',
      date: '2026-11-18',
      title: title(i),
      projectId: `p_many_${i % PROJECTS}`,
    });
  }
  const dayStart = Date.parse('2026-11-18T00:00:00Z');
  for (let i = 0; i < TASKS; i++) {
    lines.push({
      type: 'activity',
      id: `a_many_${i}`,
      userId: 'u_many',
      start: new Date(dayStart + i * 3 * 60_000).toISOString(),
      durationMinutes: (i % 3) + 1,
      headline: `Work ${i}`,
      taskId: `k_many_${i}`,
      categoryId: `c_many_${i % 40}`,
    });
  }
  for (let d = 16; d <= 22; d++) {
    lines.push({
      type: 'dayComment',
      userId: 'u_many',
      date: `2026-11-${d}`,
      comment: `Comment ${d} <&> *`.padEnd(5000, ' long comment'),
    });
  }
  const file = join(dir, 'many.ndjson');
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  return file;
}

/** The number in a trailing "and N more" line, or null. */
function leftOut(text: string): number | null {
  const match = /and (\d+) more[_*]*$/.exec(text);
  return match ? Number(match[1]) : null;
}

const bulletCount = (text: string) => text.split('\n').filter((line) => line.startsWith('• ')).length;

forEachDialect('summaries inside the platform limits', (dialect) => {
  let t: TestApp;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'daybook-limits-'));
    t = await createTestApp(dialect, { dataset: writeDataset(dir), now: NOW });
    await generate(t.storage, NOW);
  });
  after(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const level of ['day', 'week', 'month', 'quarter', 'year']) {
    test(`${level}: Slack blocks are valid and cut lists with "and N more"`, async () => {
      const res = await fetchMessage(t.app, KEY, { date: '2026-11-18', level, format: 'slack' });
      assert.equal(res.status, 200, res.body);
      const blocks = res.json.content as { type: string; text?: { text: string } }[];
      const header = blocks[0]!.text!.text;
      assert.equal(header.length, 150);
      assert.ok(header.endsWith('…'));
      assert.ok(res.json.metadata.subject.startsWith(header.slice(0, -1)));
      const tasks = blocks.find((b) => b.text?.text.startsWith('*Tasks*'))!.text!.text;
      const hidden = leftOut(tasks);
      assert.ok(hidden !== null && hidden > 0, tasks.slice(-100));
      assert.equal(bulletCount(tasks) + hidden, TASKS);
      const projects = blocks.find((b) => b.text?.text.startsWith('*Projects*'))!.text!.text;
      assert.equal(bulletCount(projects) + (leftOut(projects) ?? 0), PROJECTS);
      assert.ok(leftOut(projects)! > 0);
      const comments = blocks.find((b) => b.text?.text.startsWith('*Comments*'))!.text!.text;
      assert.ok(comments.length <= 3000);
    });

    test(`${level}: the Discord embed is valid and cuts lists with "and N more"`, async () => {
      const res = await fetchMessage(t.app, KEY, { date: '2026-11-18', level, format: 'discord' });
      assert.equal(res.status, 200, res.body);
      const embed = res.json.content;
      // Discord's 256 fit even the longest name; Slack's header cuts it to 150.
      assert.equal(embed.title, res.json.metadata.subject);
      assert.ok(embed.title.startsWith(LONG_FIRST_NAME));
      const hidden = leftOut(embed.description);
      assert.ok(hidden !== null && hidden > 0);
      assert.equal(bulletCount(embed.description) + hidden, TASKS);
      const projects = embed.fields.find((f: { name: string }) => f.name === 'Projects').value;
      assert.equal(bulletCount(projects) + (leftOut(projects) ?? 0), PROJECTS);
      const total = [
        embed.title,
        embed.description,
        embed.footer.text,
        ...embed.fields.flatMap((f: { name: string; value: string }) => [f.name, f.value]),
      ].reduce((n: number, s: string) => n + s.length, 0);
      assert.ok(total <= 6000, `${total} characters`);
      // The room left by the other parts goes to the tasks.
      assert.ok(total > 5500, `${total} characters`);
    });
  }

  test('HTML and text carry every task', async () => {
    const text = await fetchMessage(t.app, KEY, { date: '2026-11-18', format: 'text' });
    assert.equal(text.json.content.split('\n').filter((l: string) => l.startsWith('- Task ')).length, TASKS);
    const html = await fetchMessage(t.app, KEY, { date: '2026-11-18', format: 'html' });
    assert.equal((html.json.content.match(/<td[^>]*>Task \d{3}/g) ?? []).length, TASKS);
  });
});

test('the validators reject what the platforms reject', () => {
  const header = (text: string) => ({ type: 'header', text: { type: 'plain_text', text } });
  const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
  assert.deepEqual(slackBlockProblems([header('ok'), section('fine &amp; &lt;escaped&gt;'), { type: 'divider' }]), []);
  assert.equal(slackBlockProblems(Array.from({ length: 51 }, () => ({ type: 'divider' }))).length, 1);
  assert.equal(slackBlockProblems([]).length, 1);
  assert.equal(slackBlockProblems([header('x'.repeat(151))]).length, 1);
  assert.equal(slackBlockProblems([{ type: 'header', text: { type: 'mrkdwn', text: 'x' } }]).length, 1);
  assert.equal(slackBlockProblems([section('x'.repeat(3001))]).length, 1);
  assert.equal(slackBlockProblems([section('')]).length, 1);
  assert.equal(slackBlockProblems([section('a <script> & b')]).length, 1);
  assert.equal(slackBlockProblems([section('AT&T')]).length, 1);
  assert.equal(slackBlockProblems([{ type: 'section' }]).length, 1);
  assert.equal(
    slackBlockProblems([{ type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'x' })) }])
      .length,
    1,
  );
  assert.equal(
    slackBlockProblems([
      { type: 'context', elements: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'x' })) },
    ]).length,
    1,
  );
  assert.equal(slackBlockProblems([{ type: 'divider', text: 'no' }]).length, 1);
  assert.equal(slackBlockProblems([{ type: 'carousel' }]).length, 1);
  assert.equal(slackBlockProblems({ type: 'section' }).length, 1);

  const embed = {
    title: 't',
    description: 'd',
    color: 0x6c63ff,
    fields: [{ name: 'n', value: 'v', inline: true }],
    footer: { text: 'f' },
  };
  assert.deepEqual(discordEmbedProblems(embed), []);
  assert.equal(discordEmbedProblems({ ...embed, title: 'x'.repeat(257) }).length, 1);
  assert.equal(discordEmbedProblems({ ...embed, description: 'x'.repeat(4097) }).length, 1);
  assert.equal(
    discordEmbedProblems({ ...embed, fields: Array.from({ length: 26 }, () => ({ name: 'n', value: 'v' })) }).length,
    1,
  );
  assert.equal(discordEmbedProblems({ ...embed, fields: [{ name: 'x'.repeat(257), value: 'v' }] }).length, 1);
  assert.equal(discordEmbedProblems({ ...embed, fields: [{ name: 'n', value: 'x'.repeat(1025) }] }).length, 1);
  assert.equal(discordEmbedProblems({ ...embed, fields: [{ name: 'n', value: '' }] }).length, 1);
  assert.equal(discordEmbedProblems({ ...embed, footer: { text: 'x'.repeat(2049) } }).length, 1);
  assert.equal(discordEmbedProblems({ ...embed, color: '#6C63FF' }).length, 1);
  assert.equal(discordEmbedProblems({ ...embed, color: 1.5 }).length, 1);
  const crowded = {
    title: 'x'.repeat(256),
    description: 'x'.repeat(4096),
    fields: [
      { name: 'n', value: 'x'.repeat(1024) },
      { name: 'n', value: 'x'.repeat(1024) },
    ],
  };
  assert.deepEqual(discordEmbedProblems(crowded), ['embed: 6402 characters of text in all, allowed 6000']);
  assert.equal(discordEmbedProblems({ ...embed, thumbnailUrl: 'x' }).length, 1);
  assert.equal(discordEmbedProblems([embed]).length, 1);
});
