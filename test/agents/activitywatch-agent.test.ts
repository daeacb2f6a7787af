/**
 * The ActivityWatch agent and `daybook import --from activitywatch` end to end, on both
 * databases: a stand-in aw-server (./aw-server.ts) on one port, a Daybook app on another, real
 * HTTP between them. Checked through /report: not-afk window time only, gaps and afk edges,
 * re-runs that change nothing, events that grow across an aw-server restart, Daybook down, the
 * command line, and an import of aw-server's export agreeing with the agent.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type AgentOptions, runAgent, syncWithRetry } from '../../src/agents/activitywatch-sync.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { daybook, runDaybook } from '../cli/daybook-cli.ts';
import { tempFiles } from '../dataset/dataset-files.ts';
import {
  DEFAULT_NOW,
  type TestApp,
  type TestDatabase,
  call,
  createSharedTestDatabase,
  createTestApp,
  forEachDialect,
} from '../helper.ts';
import { StandInAwServer, type StandInEvent } from './aw-server.ts';

const ME = 'dbk_test_aw_agent_me_0123456789abcdef01';
const READ_ONLY = 'dbk_test_aw_agent_ro_0123456789abcdef01';
const world = {
  version: 1,
  users: [{ id: 'u_me', email: 'me@example.com', plan: 'core', timezone: 'UTC' }],
  apiKeys: [
    { userId: 'u_me', name: 'agent', key: ME, scopes: ['activity:write', 'reports:read'] },
    { userId: 'u_me', name: 'read', key: READ_ONLY, scopes: ['reports:read'] },
  ],
};

const win = (at: string, seconds: number, app: string, title: string): StandInEvent => ({
  timestamp: at,
  duration: seconds,
  data: { app, title },
});
const afk = (at: string, seconds: number, status: 'afk' | 'not-afk'): StandInEvent => ({
  timestamp: at,
  duration: seconds,
  data: { status },
});

/**
 * A morning on `day`: a window opened before the user came back (08:55), a 2 s gap between two
 * events of one window (merged), five minutes away (09:25–09:30), a window over 70 minutes (cut
 * at 10:00), a flash of half a second (dropped), and the user leaving mid-window at 11:05.
 */
function morning(day: string) {
  const at = (time: string) => `${day}T${time}+00:00`;
  return {
    window: [
      win(at('08:50:00'), 600, 'Terminal', 'build'),
      win(at('09:00:00'), 600, 'Code', 'main.ts'),
      win(at('09:10:00'), 300, 'Firefox', 'Docs'),
      win(at('09:15:02'), 298, 'Firefox', 'Docs'),
      win(at('09:20:00'), 1800, 'Code', 'main.ts'),
      win(at('09:50:00'), 4200, 'Code', 'agent.ts'),
      win(at('11:00:00'), 0.5, 'Terminal', 'x'),
      win(at('11:00:10'), 600, 'Slack', 'general'),
    ],
    afk: [
      afk(at('08:30:00'), 1500, 'afk'),
      afk(at('08:55:00'), 1800, 'not-afk'),
      afk(at('09:25:00'), 300, 'afk'),
      afk(at('09:30:00'), 5700, 'not-afk'),
      afk(at('11:05:00'), 3300, 'afk'),
    ],
  };
}

/** The activities `morning` gives: [time, minutes, headline]. */
const MORNING = [
  ['08:55', 5, 'Terminal: build'],
  ['09:00', 10, 'Code: main.ts'],
  ['09:10', 10, 'Firefox: Docs'],
  ['09:20', 5, 'Code: main.ts'],
  ['09:30', 20, 'Code: main.ts'],
  ['09:50', 10, 'Code: agent.ts'],
  ['10:00', 60, 'Code: agent.ts'],
  ['11:00', 4.83, 'Slack: general'],
];

forEachDialect('ActivityWatch agent', (dialect) => {
  let database: TestDatabase;
  let t: TestApp;
  let server: string;
  let now = DEFAULT_NOW;
  const files = tempFiles();
  const dir = mkdtempSync(join(tmpdir(), 'daybook-aw-agent-'));
  const standIns: StandInAwServer[] = [];

  before(async () => {
    database = await createSharedTestDatabase(dialect);
    await importDataset(database.storage, files.write(`aw-${dialect}.json`, world), { now: () => DEFAULT_NOW });
    t = await createTestApp(dialect, { database, dataset: null });
    server = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    for (const aw of standIns) await aw.stop();
    await t.close();
    await database.drop();
    files.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  const setNow = (iso: string) => {
    now = Date.parse(iso);
    t.setNow(now);
  };
  async function standIn(host: string, events: { window: StandInEvent[]; afk: StandInEvent[] | null }) {
    const aw = new StandInAwServer();
    aw.addHost(host, events.window, events.afk);
    await aw.start();
    standIns.push(aw);
    return aw;
  }
  let states = 0;
  function agent(aw: StandInAwServer, extra: Partial<AgentOptions> = {}) {
    const log: string[] = [];
    const waits: number[] = [];
    const options: AgentOptions = {
      awUrl: aw.url,
      server,
      key: ME,
      statePath: join(dir, `state-${++states}.json`),
      now: () => now,
      sleep: async (ms) => {
        waits.push(ms);
      },
      retryBaseMs: 1000,
      log: (line) => log.push(line),
      ...extra,
    };
    return { options, log, waits };
  }
  /** The day's activity rows of /report: [HH:MM, minutes to 2 places, headline], and the rows' ids. */
  async function reported(day: string) {
    const res = await call(t.app, 'POST', '/report', {
      key: ME,
      body: {
        dateRange: { from: Date.parse(`${day}T00:00:00Z`), to: Date.parse(`${day}T23:59:59Z`) },
        aggregationLevel: 'activity',
        sort: 'asc',
      },
    });
    assert.equal(res.status, 200);
    const rows = res.json.rows as { id: string; time: string; duration: number; headline: string }[];
    return {
      rows: rows.map((r) => [r.time, Math.round(r.duration * 100) / 100, r.headline]),
      ids: rows.map((r) => r.id),
    };
  }

  test('not-afk window time goes to /report as activities; a second run changes nothing', async () => {
    const aw = await standIn('laptop', morning('2026-11-20'));
    setNow('2026-11-20T12:00:00Z');
    const { options } = agent(aw, { since: Date.parse('2026-11-20T00:00:00Z') });
    const first = await syncWithRetry(options);
    assert.deepEqual(first, { created: 8, updated: 0, removed: 0, until: now });
    const report = await reported('2026-11-20');
    assert.deepEqual(report.rows, MORNING);
    for (const id of report.ids) assert.match(id, /^activity:aw_[0-9a-f]{40}$/);
    const state = JSON.parse(readFileSync(options.statePath, 'utf8'));
    assert.equal(state.until, '2026-11-20T12:00:00.000Z');

    const again = await syncWithRetry({ ...options, since: undefined });
    assert.deepEqual(again, { created: 0, updated: 1, removed: 0, until: now }, 'only 11:00 onwards is read again');
    const fromScratch = await syncWithRetry({ ...options, since: Date.parse('2026-11-20T00:00:00Z') });
    assert.deepEqual(fromScratch, { created: 0, updated: 8, removed: 0, until: now });
    assert.deepEqual(await reported('2026-11-20'), report);
  });

  test('an event that grows across an aw-server restart keeps its id and gets its final length; pieces merged since count once', async () => {
    const at = (time: string) => `2026-11-21T${time}+00:00`;
    const aw = await standIn('desk', {
      window: [
        win(at('10:10:00'), 240, 'Code', 'x'),
        win(at('10:14:10'), 350, 'Code', 'x'),
        win(at('10:20:00'), 600, 'Firefox', 'y'),
      ],
      afk: [afk(at('10:00:00'), 1800, 'not-afk')],
    });
    setNow('2026-11-21T10:30:00Z');
    const { options, log, waits } = agent(aw, { since: Date.parse('2026-11-21T10:00:00Z') });
    assert.deepEqual(await syncWithRetry(options), { created: 3, updated: 0, removed: 0, until: now });
    const before = await reported('2026-11-21');
    assert.deepEqual(before.rows, [
      ['10:10', 4, 'Code: x'],
      ['10:14', 5.83, 'Code: x'],
      ['10:20', 10, 'Firefox: y'],
    ]);

    // aw-server stops; meanwhile the watchers' queued heartbeats close the gap and extend the
    // last event, and a new window opens.
    await aw.stop();
    const [e1, , e3] = aw.events('aw-watcher-window_desk');
    e1!.duration = 250;
    e3!.duration = 1200;
    aw.events('aw-watcher-window_desk').push(win(at('10:40:00'), 300, 'Slack', 'z'));
    aw.events('aw-watcher-afk_desk')[0]!.duration = 2700;
    setNow('2026-11-21T10:45:00Z');
    const restarting = agent(aw, {
      statePath: options.statePath,
      sleep: async (ms) => {
        waits.push(ms);
        await aw.start();
      },
    });
    assert.deepEqual(await syncWithRetry(restarting.options), { created: 1, updated: 2, removed: 1, until: now });
    assert.match(
      restarting.log[0]!,
      /^aw-server unreachable at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); trying again in 1 s$/,
    );
    assert.deepEqual(log, []);
    const after = await reported('2026-11-21');
    assert.deepEqual(after.rows, [
      ['10:10', 10, 'Code: x'],
      ['10:20', 20, 'Firefox: y'],
      ['10:40', 5, 'Slack: z'],
    ]);
    assert.equal(after.ids[0], before.ids[0], 'the first piece kept its id');
    assert.equal(after.ids[1], before.ids[2], 'the growing event kept its id');
  });

  test('Daybook down: the agent waits 1, 2, 4 … s (capped), then posts once Daybook is up', async () => {
    const aw = await standIn('laptop', morning('2026-11-18'));
    setNow('2026-11-18T12:00:00Z');
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve));
    const port = (free.address() as { port: number }).port;
    await new Promise<void>((resolve) => free.close(() => resolve()));
    const later = await createTestApp(dialect, { database, dataset: null, now });
    try {
      const { options, log, waits } = agent(aw, {
        server: `http://127.0.0.1:${port}/`,
        since: Date.parse('2026-11-18T00:00:00Z'),
        retryCapMs: 5000,
        sleep: async (ms) => {
          waits.push(ms);
          if (waits.length === 4) await later.app.listen({ port, host: '127.0.0.1' });
        },
      });
      assert.deepEqual(await syncWithRetry(options), { created: 8, updated: 0, removed: 0, until: now });
      assert.deepEqual(waits, [1000, 2000, 4000, 5000]);
      assert.equal(log.length, 4);
      assert.match(log[3]!, /^Daybook unreachable at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\); trying again in 5 s$/);
      assert.deepEqual((await reported('2026-11-18')).rows, MORNING);
    } finally {
      await later.close();
    }
  });

  test('more than 1,000 activities go in several requests; a host without an afk bucket counts all its window time', async () => {
    const start = Date.parse('2026-11-12T08:00:00Z');
    const window = Array.from({ length: 2100 }, (_, i) =>
      win(new Date(start + i * 2000).toISOString(), 2, i % 2 ? 'B' : 'A', `t${i}`),
    );
    const aw = await standIn('many', { window, afk: null });
    setNow('2026-11-12T12:00:00Z');
    const { options } = agent(aw, { since: Date.parse('2026-11-12T00:00:00Z') });
    // One request of 2,100 would be refused whole (400: at most 1,000 items).
    assert.deepEqual(await syncWithRetry(options), { created: 2100, updated: 0, removed: 0, until: now });
    const { rows } = await reported('2026-11-12');
    assert.equal(rows.length, 2100);
    assert.deepEqual(rows[0], ['08:00', 0.03, 'A: t0']);
    assert.ok(rows.every((r) => r[1] === 0.03));
  });

  test('a state file that is not one stops the agent, naming it', async () => {
    const aw = await standIn('laptop', morning('2026-11-11'));
    const { options } = agent(aw);
    for (const text of ['{"version":', 'null', '{"version":2}']) {
      files.write('bad-state.json', text);
      await assert.rejects(
        syncWithRetry({ ...options, statePath: join(files.dir, 'bad-state.json') }),
        /bad-state\.json is not a state file of this agent \(delete it/,
      );
    }
  });

  test('aw-server busy (503): the agent waits and tries the pass again', async () => {
    const aw = await standIn('busy', morning('2026-11-13'));
    setNow('2026-11-13T12:00:00Z');
    aw.busyFor = 3;
    const { options, log, waits } = agent(aw, { since: Date.parse('2026-11-13T00:00:00Z') });
    assert.deepEqual(await syncWithRetry(options), { created: 8, updated: 0, removed: 0, until: now });
    assert.deepEqual(waits, [1000, 2000, 4000]);
    assert.equal(log[0], 'aw-server answered 503: Server busy, try again later; trying again in 1 s');
    assert.deepEqual((await reported('2026-11-13')).rows, MORNING);
  });

  test('a limited number of attempts gives up naming the cause; a refused key stops at once', async () => {
    const aw = await standIn('laptop', morning('2026-11-17'));
    setNow('2026-11-17T12:00:00Z');
    await aw.stop();
    const down = agent(aw, { since: Date.parse('2026-11-17T00:00:00Z') });
    await assert.rejects(
      syncWithRetry(down.options, { attempts: 3 }),
      /aw-server unreachable .*; gave up after 3 attempts$/,
    );
    assert.deepEqual(down.waits, [1000, 2000]);

    await aw.start();
    const refused = agent(aw, { key: READ_ONLY, since: Date.parse('2026-11-17T00:00:00Z') });
    await assert.rejects(syncWithRetry(refused.options), /^Error: Daybook answered 403: .*activity:write/);
    assert.deepEqual(refused.waits, []);
    assert.deepEqual((await reported('2026-11-17')).rows, []);
  });

  test('as a loop: a pass every interval until stopped, logging the passes that record something new', async () => {
    const aw = await standIn('loop', morning('2026-11-16'));
    setNow('2026-11-16T10:00:00Z');
    const stop = new AbortController();
    const { options, log, waits } = agent(aw, {
      since: Date.parse('2026-11-16T00:00:00Z'),
      sleep: async (ms) => {
        waits.push(ms);
        setNow(waits.length === 1 ? '2026-11-16T10:30:00Z' : '2026-11-16T12:00:00Z');
        if (waits.length === 3) stop.abort();
      },
    });
    await runAgent(options, 60_000, stop.signal);
    assert.deepEqual(waits, [60_000, 60_000, 60_000]);
    assert.deepEqual(log, [
      'recorded 6 new and 0 re-read activities, up to 2026-11-16T10:00:00.000Z',
      'recorded 1 new and 5 re-read activities, up to 2026-11-16T10:30:00.000Z',
      'recorded 1 new and 1 re-read activities, up to 2026-11-16T12:00:00.000Z',
    ]);
    assert.deepEqual((await reported('2026-11-16')).rows, MORNING);
  });

  test('daybook agent activitywatch --once on the command line; options checked', async () => {
    const aw = await standIn('cli', morning('2026-11-15'));
    // The command line runs on the real clock.
    t.setNow(Date.now());
    const state = join(dir, 'cli-state.json');
    const args = ['agent', 'activitywatch', '--aw-url', aw.url, '--server', server, '--once'];
    const run = await runDaybook([...args, '--key', ME, '--since', '2026-11-15T00:00:00Z', '--state', state]);
    assert.equal(run.stderr, '');
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^recorded 8 new and 0 re-read activities, up to \d{4}-.*Z\n$/);
    assert.deepEqual((await reported('2026-11-15')).rows, MORNING);
    const again = await runDaybook([...args, '--since', '2026-11-15', '--state', state], { DAYBOOK_KEY: ME });
    assert.match(again.stdout, /^recorded 0 new and 8 re-read activities/);

    const usage = async (extra: string[], message: RegExp) => {
      const res = await runDaybook([...args, '--key', ME, '--state', state, ...extra], { DAYBOOK_KEY: '' });
      assert.equal(res.code, 2, res.stderr);
      assert.match(res.stderr, message);
    };
    await usage(['--since', 'yesterday'], /--since must be a date \(YYYY-MM-DD\) or an ISO 8601 instant/);
    await usage(['--interval', '0'], /--interval must be a whole number of seconds/);
    await usage(['--server', 'ftp://x'], /--server must be an http:\/\/ or https:\/\/ URL/);
    const noKey = await runDaybook(args, { DAYBOOK_KEY: '' });
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /--key \(or DAYBOOK_KEY\) is required/);
    const refused = await runDaybook([
      ...args,
      '--key',
      'dbk_not_a_key',
      '--since',
      '2026-11-15',
      '--state',
      join(dir, 'cli-refused.json'),
    ]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /^daybook: Daybook answered 401/);
    t.setNow(now);
  });

  test("daybook import --from activitywatch takes an aw-server export with the agent's ids: the agent then finds nothing new", async () => {
    const aw = await standIn('laptop', morning('2026-11-14'));
    const file = files.write('aw-export.json', aw.exportDocument() as object);
    const imported = await daybook(database.url, 'import', '--from', 'activitywatch', file, '--user', 'u_me');
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, /^imported 8 records in .* \(activity: 8\)\n$/);
    assert.deepEqual((await reported('2026-11-14')).rows, MORNING);

    setNow('2026-11-14T12:00:00Z');
    const { options } = agent(aw, { since: Date.parse('2026-11-14T00:00:00Z') });
    assert.deepEqual(await syncWithRetry(options), { created: 0, updated: 8, removed: 0, until: now });
    const twice = await daybook(database.url, 'import', '--from', 'activitywatch', file, '--user', 'u_me');
    assert.match(twice.stdout, /^imported 8 records/);
    assert.deepEqual((await reported('2026-11-14')).rows, MORNING);

    const fails = async (args: string[], code: number, message: RegExp) => {
      const res = await daybook(database.url, 'import', ...args);
      assert.equal(res.code, code, res.stderr);
      assert.match(res.stderr, message);
    };
    await fails(['--from', 'activitywatch', file], 2, /--from activitywatch needs --user <id>/);
    await fails(['--from', 'activitywatch', file, '--user', 'u_nobody'], 2, /no user with id "u_nobody"/);
    await fails(['--from', 'toggl', file], 2, /--from must be one of daybook, activitywatch/);
    await fails(['--user', 'u_me', file], 2, /--user goes with --from activitywatch/);
    const notExport = files.write('not-export.json', { version: 1 });
    await fails(['--from', 'activitywatch', notExport, '--user', 'u_me'], 1, /not an ActivityWatch export/);
  });
});
