/**
 * Golden files: every level in every format for one fixed fixture (test/fixtures/summaries.json,
 * with `<script>`, `&`, `*bold*` and emoji in user strings), locked after review. Set
 * DAYBOOK_UPDATE_GOLDEN=1 to rewrite them after an intended change, then review the diff.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type TestApp, createTestApp, forEachDialect } from '../helper.ts';
import { AFTER_2026, SUMMARIES_FIXTURE, ZOE, fetchMessage, generate } from './support.ts';

const goldenDir = join(dirname(fileURLToPath(import.meta.url)), 'golden');
const UPDATE = process.env.DAYBOOK_UPDATE_GOLDEN === '1';
const EXTENSION = { html: 'html', text: 'txt', slack: 'slack.json', discord: 'discord.json' } as const;

const SUBJECTS = {
  day: "Zoë's daily summary: Nov 18",
  week: "Zoë's weekly summary: Nov 16 – Nov 22",
  month: "Zoë's monthly summary: November 2026",
  quarter: "Zoë's quarterly summary: Q4 2026",
  year: "Zoë's yearly summary: 2026",
} as const;

function matchesGolden(name: string, actual: string): void {
  const file = join(goldenDir, name);
  if (UPDATE) writeFileSync(file, actual);
  assert.equal(actual, readFileSync(file, 'utf8'), `${name} differs from its golden file`);
}

forEachDialect('summary golden files', (dialect) => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp(dialect, { dataset: SUMMARIES_FIXTURE, now: AFTER_2026 });
    await generate(t.storage, AFTER_2026);
  });
  after(() => t.close());

  for (const level of ['day', 'week', 'month', 'quarter', 'year'] as const) {
    for (const format of ['html', 'text', 'slack', 'discord'] as const) {
      test(`${level} as ${format}`, async () => {
        const res = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', level, format });
        assert.equal(res.status, 200, res.body);
        assert.equal(res.json.level, level);
        assert.equal(res.json.format, format);
        assert.equal(res.json.metadata.subject, SUBJECTS[level]);
        const content =
          typeof res.json.content === 'string' ? res.json.content : `${JSON.stringify(res.json.content, null, 2)}\n`;
        matchesGolden(`${level}.${EXTENSION[format]}`, content);
      });
    }
  }

  test('HTML escapes every user string; nothing of it can run or inject markup', async () => {
    const res = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', level: 'week', format: 'html' });
    const html: string = res.json.content;
    assert.doesNotMatch(html, /<script|<b>|<\/b>/i);
    assert.match(html, /R&amp;D &lt;script&gt;alert\(&quot;x&quot;\)&lt;\/script&gt;/);
    assert.match(html, /Zoë&#39;s weekly summary/);
    assert.match(html, /Ship \*bold\* release 🚢/);
    assert.match(html, /Good start &amp; &lt;b&gt;focus&lt;\/b&gt;/);
    // The only tags are the fragment's own.
    const tags = new Set([...html.matchAll(/<\/?([a-z0-9]+)/g)].map((m) => m[1]));
    assert.deepEqual([...tags].sort(), [
      'br',
      'dd',
      'dl',
      'dt',
      'h2',
      'h3',
      'p',
      'section',
      'strong',
      'table',
      'td',
      'tr',
    ]);
  });

  test('Slack mrkdwn escapes &, < and >; Discord escapes its markdown', async () => {
    const slack = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', level: 'week', format: 'slack' });
    const slackText = JSON.stringify(slack.json.content);
    assert.doesNotMatch(slackText, /<script/);
    assert.match(slackText, /R&amp;D &lt;script&gt;/);
    const discord = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', level: 'week', format: 'discord' });
    const projects = discord.json.content.fields.find((f: { name: string }) => f.name === 'Projects').value;
    assert.match(projects, /• \\\*bold\\\* ideas\\_ — 30 min/);
  });

  test('the week: totals, projects, categories, tasks longest first, comments and the change', async () => {
    const res = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', level: 'week', format: 'text' });
    const text: string = res.json.content;
    assert.match(text, /^7 h 20 min tracked on 3 of 7 days$/m);
    assert.match(text, /^\+5 h 20 min compared with the previous week \(2 h\)$/m);
    const tasks = text.split('\nTasks\n')[1]!.split('\n\n')[0]!.split('\n');
    assert.deepEqual(tasks, [
      '- Ship *bold* release 🚢 (Website 🚀) — 4 h 30 min',
      '- Customer call — 1 h 15 min',
      '- Review <script>alert("x")</script> & fixes (R&D <script>alert("x")</script>) — 45 min',
      '- Late fix (R&D <script>alert("x")</script>) — 20 min',
    ]);
    // A comment on a day without tracked time still belongs to its week.
    assert.match(text, /- Nov 21: Weekend note, no tracked time/);
  });

  test('the change against the previous period reads both ways', async () => {
    const day = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', format: 'text' });
    assert.match(day.json.content, /^-25 min compared with the previous day \(2 h\)$/m);
    const year = await fetchMessage(t.app, ZOE.summaries, { date: '2026-11-18', level: 'year', format: 'text' });
    assert.match(year.json.content, /^\+17 h 20 min compared with the previous year \(1 h\)$/m);
    const first = await fetchMessage(t.app, ZOE.summaries, { date: '2025-12-30', format: 'text' });
    assert.match(first.json.content, /^No tracked time in the previous day$/m);
  });
});
