/**
 * The README's first-run path: an empty database, `daybook serve`, and the key and curl commands
 * it prints must work; a second start seeds nothing.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { FIRST_RUN_DEMO, seedDemoOnFirstRun } from '../../src/first-run.ts';
import { importDataset } from '../../src/dataset/import.ts';
import { openStorage, type Storage } from '../../src/storage/database.ts';
import { SCOPES } from '../../src/services/scopes.ts';
import { FIRST_RUN_STALE_MS, readFirstRun } from '../../src/storage/first-run.ts';
import {
  DEFAULT_NOW,
  EXAMPLE,
  call,
  createTestApp,
  createTestDatabase,
  forEachDialect,
  type TestDatabase,
} from '../helper.ts';

const run = promisify(execFile);
const daybook = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'daybook');
const DEV_ENV = {} as NodeJS.ProcessEnv;

async function userCount(storage: Storage): Promise<number> {
  return (await storage.db.selectFrom('users').select('id').execute()).length;
}

forEachDialect('first run, in process', (dialect) => {
  let db: TestDatabase;
  before(async () => {
    db = await createTestDatabase(dialect);
  });
  after(() => db.drop());

  test('NODE_ENV=production and DAYBOOK_DEMO=off leave an empty database empty', async () => {
    assert.equal(await seedDemoOnFirstRun(db.storage, { env: { NODE_ENV: 'production' }, now: DEFAULT_NOW }), null);
    assert.equal(await seedDemoOnFirstRun(db.storage, { env: { DAYBOOK_DEMO: 'off' }, now: DEFAULT_NOW }), null);
    assert.equal(await userCount(db.storage), 0);
    assert.equal(await readFirstRun(db.storage.db), null, 'a later start may still seed');
  });

  test('an empty database gets the demo once; its key works with every scope', async () => {
    const demo = await seedDemoOnFirstRun(db.storage, { env: DEV_ENV, now: DEFAULT_NOW });
    assert.ok(demo);
    assert.equal(demo.users, FIRST_RUN_DEMO.users);
    assert.deepEqual([...demo.key.scopes].sort(), [...SCOPES].sort());
    assert.ok(demo.summaries > 0);
    assert.match(String(await readFirstRun(db.storage.db)), /demo workspace created/);

    const t = await createTestApp(dialect, { dataset: null, database: db });
    try {
      const user = await call(t.app, 'GET', '/user', { key: demo.key.key });
      assert.deepEqual(user.json, { success: true, name: demo.key.userName, email: 'amara.okafor@example.com' });
    } finally {
      await t.close();
    }

    assert.equal(await seedDemoOnFirstRun(db.storage, { env: DEV_ENV, now: DEFAULT_NOW + 60_000 }), null);
    assert.equal(await userCount(db.storage), FIRST_RUN_DEMO.users);
  });

  test("the first run's keys are not derivable from the seed: two databases get different keys", async () => {
    const other = await createTestDatabase(dialect);
    try {
      const first = await seedDemoOnFirstRun(other.storage, { env: DEV_ENV, now: DEFAULT_NOW });
      const keys = await db.storage.db.selectFrom('api_keys').select('key_hash').execute();
      const otherKeys = await other.storage.db.selectFrom('api_keys').select('key_hash').execute();
      assert.ok(first);
      assert.equal(keys.filter((k) => otherKeys.some((o) => o.key_hash === k.key_hash)).length, 0);
    } finally {
      await other.drop();
    }
  });

  test('a database that already has data is left alone, and is never seeded later', async () => {
    const other = await createTestDatabase(dialect);
    try {
      await importDataset(other.storage, EXAMPLE, { now: () => DEFAULT_NOW });
      const before = await userCount(other.storage);
      assert.equal(await seedDemoOnFirstRun(other.storage, { env: DEV_ENV, now: DEFAULT_NOW }), null);
      assert.equal(await userCount(other.storage), before);
      assert.match(String(await readFirstRun(other.storage.db)), /already had data/);
    } finally {
      await other.drop();
    }
  });
});

forEachDialect('a first start that was cut off', (dialect) => {
  test('a claim left in progress is taken over once stale, if the database is still empty', async () => {
    const db = await createTestDatabase(dialect);
    try {
      const startedAt = DEFAULT_NOW;
      // What a start killed during its demo import leaves: the claim, and no data.
      await db.storage.db
        .insertInto('daybook_meta')
        .values({
          key: 'first_run',
          value: JSON.stringify({ startedAt: new Date(startedAt).toISOString(), outcome: 'in progress' }),
        })
        .execute();
      // Another process may still be seeding: a recent claim is left alone.
      assert.equal(
        await seedDemoOnFirstRun(db.storage, { env: DEV_ENV, now: startedAt + FIRST_RUN_STALE_MS - 1000 }),
        null,
      );
      assert.equal(await userCount(db.storage), 0);
      const demo = await seedDemoOnFirstRun(db.storage, { env: DEV_ENV, now: startedAt + FIRST_RUN_STALE_MS + 1000 });
      assert.ok(demo, 'a stale claim on an empty database is taken over');
      assert.equal(await userCount(db.storage), FIRST_RUN_DEMO.users);
      assert.match(String(await readFirstRun(db.storage.db)), /demo workspace created/);
      assert.equal(
        await seedDemoOnFirstRun(db.storage, { env: DEV_ENV, now: startedAt + 10 * FIRST_RUN_STALE_MS }),
        null,
      );
    } finally {
      await db.drop();
    }
  });
});

/** `bin/daybook serve` as a child process, with its standard output collected. */
class ServerProcess {
  output = '';
  readonly child: ChildProcess;

  constructor(databaseUrl: string) {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      DAYBOOK_DATABASE_URL: databaseUrl,
      LOG_LEVEL: 'info',
    };
    delete env.NODE_ENV;
    delete env.DAYBOOK_DEMO;
    this.child = spawn('bash', [daybook, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.on('data', (chunk) => {
      this.output += String(chunk);
    });
    this.child.stderr!.on('data', (chunk) => {
      this.output += String(chunk);
    });
  }

  /** Resolves with the first match of `pattern` in the output. */
  async waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.output.match(pattern);
      if (match) return match;
      if (this.child.exitCode !== null) throw new Error(`server exited (${this.child.exitCode}):\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stop(): Promise<number | null> {
    if (this.child.exitCode !== null) return this.child.exitCode;
    const exited = once(this.child, 'exit');
    this.child.kill('SIGTERM');
    await exited;
    return this.child.exitCode;
  }
}

forEachDialect('first run of daybook serve', (dialect) => {
  let db: TestDatabase | null = null;
  let dir: string;
  let databaseUrl: string;
  const servers: ServerProcess[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'daybook-first-run-'));
    if (dialect === 'sqlite') {
      databaseUrl = `sqlite:${join(dir, 'daybook.db')}`;
    } else {
      db = await createTestDatabase(dialect);
      databaseUrl = db.url;
    }
  });
  after(async () => {
    for (const server of servers) await server.stop();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  test('an empty database: the printed key and curl commands work; a restart seeds nothing', async () => {
    const first = new ServerProcess(databaseUrl);
    servers.push(first);
    await first.waitFor(/API reference: /);
    const url = (await first.waitFor(/Daybook is running at (http:\/\/\S+)/))[1]!;
    const key = (await first.waitFor(/^ {2}(dbk_\S+)$/m))[1]!;
    assert.match(first.output, /first start on an empty database/);
    assert.ok(first.output.includes(`${url}/docs`));

    const commands = [...first.output.matchAll(/^ {2}(curl .*)$/gm)].map((m) => m[1]!);
    assert.equal(commands.length, 3, first.output);
    assert.deepEqual(
      commands.map((c) => new URL(c.split(' ').find((w) => w.startsWith('http'))!).pathname),
      ['/user', '/report', '/projects'],
    );
    for (const command of commands) {
      assert.ok(command.includes(key));
      const { stdout } = await run('bash', ['-c', command]);
      const body = JSON.parse(stdout);
      assert.equal(body.success, true, `${command}\n${stdout}`);
    }
    const { stdout: user } = await run('bash', ['-c', commands[0]!]);
    assert.equal(JSON.parse(user).email, 'amara.okafor@example.com');
    const { stdout: report } = await run('bash', ['-c', commands[1]!]);
    assert.ok(
      JSON.parse(report).rows.some((r: { duration: number }) => r.duration > 0),
      'the demo has tracked time in the last 7 days',
    );
    assert.equal(await first.stop(), 0);

    const second = new ServerProcess(databaseUrl);
    servers.push(second);
    const secondUrl = (await second.waitFor(/Daybook listening on (http:\/\/[^"\s]+)/))[1]!;
    const response = await fetch(`${secondUrl}/user`, { headers: { 'x-api-key': key } });
    assert.equal(response.status, 200);
    assert.doesNotMatch(second.output, /first start|demo workspace|dbk_/);
    // A restart still says where the server is and how to make a key, and says "listening" once.
    assert.match(second.output, new RegExp(`Daybook is running at ${secondUrl}`));
    assert.match(second.output, /bin\/daybook keys create --user <id>/);
    assert.equal(second.output.match(/listening/gi)?.length, 1, second.output);
    assert.equal(await second.stop(), 0);

    const storage = db?.storage ?? openStorage(databaseUrl);
    try {
      assert.equal(await userCount(storage), FIRST_RUN_DEMO.users);
    } finally {
      if (!db) await storage.close();
    }
  });
});
