/**
 * The `daybook` command line against both databases: run in this process (runCli, what
 * bin/daybook runs), and as the program itself where a process is the point: its exit status,
 * an import and export through it, a reader closing its output, a second process writing.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { migrate, openStorage } from '../../src/storage/database.ts';
import { exportText } from '../dataset/dataset-files.ts';
import { EXAMPLE, type TestApp, call, createTestApp, forEachDialect } from '../helper.ts';
import { daybook, daybookProcess, emptyDatabase, repoRoot } from './daybook-cli.ts';

/** The app serving the database the CLI wrote to. */
async function appOn(url: string): Promise<TestApp> {
  const storage = openStorage(url);
  const t = await createTestApp('sqlite', { dataset: null, database: { url, storage, drop: () => storage.close() } });
  return {
    ...t,
    close: async () => {
      await t.close();
      await storage.close();
    },
  };
}

/** A folder, named as a user in the working directory would name it. */
const testFolder = relative(process.cwd(), join(repoRoot, 'test'));

test('the program itself (bin/daybook): --help exits 0 listing the commands; a usage error exits 2', async () => {
  const help = await daybookProcess('sqlite::memory:', '--help');
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: daybook \[options\] \[command\]\n/);
  for (const command of ['serve', 'migrate', 'import', 'export', 'demo', 'users', 'teams', 'keys', 'summaries']) {
    assert.match(help.stdout, new RegExp(`^ {2}${command}\\b`, 'm'), command);
  }
  const wrong = await daybookProcess(
    'sqlite::memory:',
    'users',
    'create',
    '--email',
    'x@example.com',
    '--timezone',
    'Mars/Olympus',
  );
  assert.deepEqual([wrong.code, wrong.stdout], [2, '']);
  assert.equal(
    wrong.stderr,
    'daybook: --timezone must be an IANA timezone such as Europe/Berlin (got "Mars/Olympus")\n',
  );
});

forEachDialect('daybook CLI', (dialect) => {
  let dir: string;
  let db: { url: string; drop(): Promise<void> };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'daybook-cli-'));
    db = await emptyDatabase(dialect, dir, 'cli');
  });
  after(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('migrate applies the migrations to an empty database, then has nothing to do', async () => {
    const first = await daybook(db.url, 'migrate');
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /^applied: 0001-core\b/);
    const second = await daybook(db.url, 'migrate');
    assert.deepEqual([second.code, second.stdout], [0, 'database is up to date\n']);
  });

  test('users create, list and update', async () => {
    const created = await daybook(
      db.url,
      'users',
      'create',
      '--id',
      'u_ann',
      '--email',
      'ann@example.com',
      '--name',
      'Ann Lee',
      '--timezone',
      'Europe/Berlin',
      '--plan',
      'pro',
    );
    assert.deepEqual([created.code, created.stdout], [0, 'u_ann\n'], created.stderr);
    const generated = await daybook(db.url, 'users', 'create', '--email', 'ben@example.com');
    assert.equal(generated.code, 0, generated.stderr);
    const benId = generated.stdout.trim();
    assert.match(benId, /^u_[A-Za-z0-9]+$/);

    const listed = await daybook(db.url, 'users', 'list');
    assert.equal(listed.code, 0, listed.stderr);
    const [header, ...lines] = listed.stdout.trim().split('\n');
    assert.equal(header, 'id\temail\tname\tplan\ttimezone');
    assert.deepEqual(
      lines.sort(),
      [`${benId}\tben@example.com\t\tcore\tUTC`, 'u_ann\tann@example.com\tAnn Lee\tpro\tEurope/Berlin'].sort(),
    );
    const asJson = await daybook(db.url, 'users', 'list', '--json');
    assert.deepEqual(
      (JSON.parse(asJson.stdout) as { id: string }[]).find((u) => u.id === 'u_ann'),
      { id: 'u_ann', email: 'ann@example.com', name: 'Ann Lee', plan: 'pro', timezone: 'Europe/Berlin' },
    );

    const updated = await daybook(
      db.url,
      'users',
      'update',
      'u_ann',
      '--name',
      'Ann Meyer',
      '--timezone',
      'Asia/Tokyo',
      '--plan',
      'free',
    );
    assert.deepEqual([updated.code, updated.stdout], [0, 'updated u_ann\n'], updated.stderr);
    const after = await daybook(db.url, 'users', 'list');
    assert.ok(after.stdout.includes('u_ann\tann@example.com\tAnn Meyer\tfree\tAsia/Tokyo\n'), after.stdout);
  });

  test("users update with a new timezone moves the user's activities to their new local days", async () => {
    const file = join(dir, `late-${dialect}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        version: 1,
        users: [{ id: 'u_late', email: 'late@example.com', timezone: 'UTC' }],
        activities: [{ id: 'a_late', userId: 'u_late', start: '2026-11-16T23:30:00Z', headline: 'late' }],
      }),
    );
    assert.equal((await daybook(db.url, 'import', file)).code, 0);
    const moved = await daybook(db.url, 'users', 'update', 'u_late', '--timezone', 'Europe/Berlin');
    assert.equal(moved.code, 0, moved.stderr);
    const storage = openStorage(db.url);
    try {
      const row = await storage.db
        .selectFrom('activities')
        .select('local_date')
        .where('id', '=', 'a_late')
        .executeTakeFirstOrThrow();
      assert.equal(row.local_date, '2026-11-17');
    } finally {
      await storage.close();
    }
  });

  test('teams create, add-member and set-member-status', async () => {
    const created = await daybook(db.url, 'teams', 'create', '--id', 't_core', '--name', 'Core');
    assert.deepEqual([created.code, created.stdout], [0, 't_core\n'], created.stderr);
    const added = await daybook(
      db.url,
      'teams',
      'add-member',
      '--team',
      't_core',
      '--user',
      'u_ann',
      '--role',
      'admin',
    );
    assert.deepEqual([added.code, added.stdout], [0, 'u_ann is a member of t_core\n'], added.stderr);
    const inactive = await daybook(
      db.url,
      'teams',
      'set-member-status',
      '--team',
      't_core',
      '--user',
      'u_ann',
      '--status',
      'inactive',
    );
    assert.deepEqual([inactive.code, inactive.stdout], [0, 'u_ann is inactive in t_core\n'], inactive.stderr);

    const exported = await daybook(db.url, 'export');
    const team = (JSON.parse(exported.stdout) as { teams: { id: string }[] }).teams.find((t) => t.id === 't_core');
    assert.deepEqual(team, {
      id: 't_core',
      name: 'Core',
      members: [{ userId: 'u_ann', status: 'inactive', role: 'admin' }],
    });

    const stranger = await daybook(
      db.url,
      'teams',
      'set-member-status',
      '--team',
      't_core',
      '--user',
      'u_late',
      '--status',
      'active',
    );
    assert.equal(stranger.code, 2);
    assert.match(stranger.stderr, /u_late is not a member of t_core/);

    // --team takes a team's exact name as well, as the API does.
    const byName = await daybook(
      db.url,
      'teams',
      'set-member-status',
      '--team',
      'Core',
      '--user',
      'u_ann',
      '--status',
      'active',
    );
    assert.deepEqual([byName.code, byName.stdout], [0, 'u_ann is active in t_core\n'], byName.stderr);
    const unknown = await daybook(db.url, 'teams', 'add-member', '--team', 'Nope', '--user', 'u_ann');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no team with id or name "Nope" \(see daybook teams list\)/);
    const listed = await daybook(db.url, 'teams', 'list');
    assert.equal(listed.code, 0, listed.stderr);
    const [header, ...rows] = listed.stdout.trim().split('\n');
    assert.equal(header, 'id\tname\tactiveMembers\tmembers');
    assert.ok(rows.includes('t_core\tCore\t1\t1'), listed.stdout);
    const asJson = JSON.parse((await daybook(db.url, 'teams', 'list', '--json')).stdout) as { id: string }[];
    assert.deepEqual(
      asJson.find((t) => t.id === 't_core'),
      { id: 't_core', name: 'Core', activeMembers: 1, members: 1 },
    );
  });

  test('keys create prints the key once; it works over HTTP and only its hash is stored', async () => {
    const created = await daybook(
      db.url,
      'keys',
      'create',
      '--user',
      'u_late',
      '--name',
      'laptop',
      '--scopes',
      'user:read,reports:read',
    );
    assert.equal(created.code, 0, created.stderr);
    const key = created.stdout.trim();
    assert.match(key, /^dbk_[A-Za-z0-9_-]{43}$/, 'at least 128 bits of randomness, printed alone on stdout');
    assert.doesNotMatch(created.stderr, new RegExp(key));

    const t = await appOn(db.url);
    try {
      const res = await call(t.app, 'GET', '/user', { key });
      assert.deepEqual([res.status, res.json], [200, { success: true, name: 'late', email: 'late@example.com' }]);
      const rows = await t.storage.db.selectFrom('api_keys').selectAll().where('user_id', '=', 'u_late').execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.key_hash, createHash('sha256').update(key).digest('hex'));
      assert.ok(!JSON.stringify(rows).includes(key));
      assert.equal(rows[0]!.scopes, 'user:read reports:read');

      const listed = await daybook(db.url, 'keys', 'list', '--user', 'u_late');
      assert.equal(listed.code, 0, listed.stderr);
      const [header, row] = listed.stdout.trim().split('\n');
      assert.equal(header, 'id\tuser\tname\tscopes\tstate\tlastUsed');
      const [id, user, name, scopes, state] = row!.split('\t');
      assert.deepEqual(
        [id, user, name, scopes, state],
        [rows[0]!.id, 'u_late', 'laptop', 'user:read reports:read', 'active'],
      );
      assert.ok(!listed.stdout.includes(key));

      const revoked = await daybook(db.url, 'keys', 'revoke', rows[0]!.id);
      assert.deepEqual([revoked.code, revoked.stdout], [0, `revoked ${rows[0]!.id}\n`], revoked.stderr);
      assert.match(
        (await daybook(db.url, 'keys', 'list')).stdout,
        new RegExp(`^${rows[0]!.id}\\tu_late\\tlaptop\\t.*\\trevoked\\t`, 'm'),
      );
      const after = await call(t.app, 'GET', '/user', { key });
      assert.deepEqual(
        [after.status, after.json],
        [401, { success: false, error: 'Invalid API key', message: 'Invalid API key' }],
      );
    } finally {
      await t.close();
    }
  });

  const usageErrors: [string, string[], RegExp][] = [
    [
      'an unknown scope',
      ['keys', 'create', '--user', 'u_ann', '--name', 'x', '--scopes', 'user:read,users:write'],
      /unknown scope "users:write"/,
    ],
    [
      'an unknown user for a key',
      ['keys', 'create', '--user', 'u_nobody', '--name', 'x'],
      /no user with id "u_nobody"/,
    ],
    ['an unknown user to update', ['users', 'update', 'u_nobody', '--name', 'X'], /no user with id "u_nobody"/],
    [
      'an unknown user for a team',
      ['teams', 'add-member', '--team', 't_core', '--user', 'u_nobody'],
      /no user with id "u_nobody"/,
    ],
    [
      'a bad timezone',
      ['users', 'create', '--email', 'x@example.com', '--timezone', 'Mars/Olympus'],
      /--timezone must be an IANA timezone.*"Mars\/Olympus"/,
    ],
    ['a missing option', ['users', 'create', '--name', 'No Mail'], /required option '--email <email>' not specified/],
    [
      'a bad plan',
      ['users', 'update', 'u_ann', '--plan', 'gold'],
      /--plan must be one of free, core, pro \(got "gold"\)/,
    ],
    [
      'a taken e-mail address',
      ['users', 'create', '--email', 'ann@example.com'],
      /that e-mail address is already in use/,
    ],
    ['an unknown key to revoke', ['keys', 'revoke', 'key_nope'], /no key with id "key_nope"/],
    ['an unknown command', ['userz', 'list'], /unknown command 'userz'/],
    ['a file that does not exist', ['import', 'no-such-file.json'], /no-such-file.json does not exist/],
    ['a folder given as the file', ['import', testFolder], new RegExp(`cannot read ${testFolder}: not a file`)],
  ];
  for (const [what, args, message] of usageErrors) {
    test(`${what} is a usage error: non-zero exit and a clear message`, async () => {
      const run = await daybook(db.url, ...args);
      assert.notEqual(run.code, 0);
      assert.match(run.stderr, message);
      assert.equal(run.stdout, '');
    });
  }

  test('import then export: the export is the database in the dataset format, to stdout or a file', async () => {
    const target = await emptyDatabase(dialect, dir, 'cli');
    try {
      const imported = await daybook(target.url, 'import', EXAMPLE);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(
        imported.stdout,
        /^imported 134 records in [\d.]+ s \(user: 4, team: 2, portfolio: 2, category: 3, project: 6, task: 18, activity: 90, dayComment: 4, apiKey: 5\)\n$/,
      );

      const toStdout = await daybook(target.url, 'export');
      assert.equal(toStdout.code, 0, toStdout.stderr);
      const jsonFile = join(dir, `export-${dialect}.json`);
      const ndjsonFile = join(dir, `export-${dialect}.ndjson`);
      const jsonlFile = join(dir, `export-${dialect}.jsonl`);
      assert.equal((await daybook(target.url, 'export', '--out', jsonFile)).code, 0);
      assert.equal((await daybook(target.url, 'export', '--out', ndjsonFile)).code, 0);
      assert.equal((await daybook(target.url, 'export', '--out', jsonlFile)).code, 0);
      assert.equal(readFileSync(jsonFile, 'utf8'), toStdout.stdout);
      assert.equal(
        readFileSync(jsonlFile, 'utf8'),
        readFileSync(ndjsonFile, 'utf8'),
        '.jsonl is NDJSON too, as import reads it',
      );

      const storage = openStorage(target.url);
      try {
        assert.equal(toStdout.stdout, await exportText(storage, 'json'));
        assert.equal(readFileSync(ndjsonFile, 'utf8'), await exportText(storage, 'ndjson'));
      } finally {
        await storage.close();
      }
      const keys = JSON.parse(toStdout.stdout).apiKeys as { keyHash?: string; key?: string }[];
      assert.ok(
        keys.every((k) => k.keyHash && !k.key),
        'keys are exported as hashes',
      );

      // The NDJSON export imports into another empty database and exports the same bytes.
      const copy = await emptyDatabase(dialect, dir, 'cli');
      try {
        assert.equal((await daybook(copy.url, 'import', ndjsonFile)).code, 0);
        assert.equal((await daybook(copy.url, 'export')).stdout, toStdout.stdout);
      } finally {
        await copy.drop();
      }
    } finally {
      await target.drop();
    }
  });

  test('the program itself (bin/daybook): import a file, then export prints the database and exits 0', async () => {
    const target = await emptyDatabase(dialect, dir, 'cli');
    try {
      const imported = await daybookProcess(target.url, 'import', EXAMPLE);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /^imported 134 records in [\d.]+ s \(user: 4, /);
      const exported = await daybookProcess(target.url, 'export');
      assert.equal(exported.code, 0, exported.stderr);
      const storage = openStorage(target.url);
      try {
        assert.equal(exported.stdout, await exportText(storage, 'json'));
      } finally {
        await storage.close();
      }
    } finally {
      await target.drop();
    }
  });

  test('an export whose reader stops early (export | head) ends quietly with status 0', async () => {
    const demo = await emptyDatabase(dialect, dir, 'cli');
    try {
      assert.equal((await daybook(demo.url, 'demo', '--users', '2', '--days', '20')).code, 0);
      const { status, stderr } = await new Promise<{ status: number | null; stderr: string }>((resolve) => {
        const child = spawn('bash', [join(repoRoot, 'bin', 'daybook'), 'export'], {
          env: { ...process.env, DAYBOOK_DATABASE_URL: demo.url },
        });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        // Like `head -c 10`: read a little, then close the pipe.
        child.stdout.once('data', () => child.stdout.destroy());
        child.on('close', (code) => resolve({ status: code, stderr: err }));
      });
      assert.deepEqual([status, stderr], [0, '']);
    } finally {
      await demo.drop();
    }
  });

  test('a failing import exits non-zero, names the record and changes nothing', async () => {
    const before = await daybook(db.url, 'export');
    const lines = [
      { type: 'user', id: 'u_zed', email: 'zed@example.com' },
      { type: 'category', id: 'c_new', name: 'New' },
      {
        type: 'activity',
        id: 'a_zed',
        userId: 'u_zed',
        start: '2026-11-20T09:00:00Z',
        headline: 'Work',
        categoryId: 'c_new',
      },
      { type: 'task', id: 'k_orphan', userId: 'u_nobody', date: '2026-11-20', title: 'Orphan' },
    ].map((record) => JSON.stringify(record));
    const file = join(dir, `bad-${dialect}.ndjson`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    const run = await daybook(db.url, 'import', file);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /^daybook: import failed, nothing was changed: line 4 \(task\): userId: no user with id "u_nobody"\n$/,
    );
    assert.equal((await daybook(db.url, 'export')).stdout, before.stdout);
  });
});

test('SQLite: an import succeeds while a server process writes to the same file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'daybook-cli-busy-'));
  const url = `sqlite:${join(dir, 'busy.db')}`;
  const file = join(dir, 'demo.ndjson');
  const server = openStorage(url);
  try {
    assert.equal((await daybook(url, 'demo', '--users', '3', '--days', '20', '--out', file)).code, 0);
    await migrate(server);
    // The "server": a write every few milliseconds for as long as the import runs.
    let writing = true;
    let writes = 0;
    const writer = (async () => {
      while (writing) {
        // While the import holds the write lock a write waits for it (busy_timeout); a long
        // import may outlast that wait, which the server answers 503: not this test's concern.
        await server.db
          .insertInto('teams')
          .values({ id: `t_busy_${writes}`, name: 'busy' })
          .execute()
          .catch((err: { code?: string }) => {
            if (err.code !== 'SQLITE_BUSY') throw err;
          });
        writes++;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    // A process of its own, as the server is one.
    const run = await daybookProcess(url, 'import', file);
    writing = false;
    await writer;
    assert.equal(run.code, 0, run.stderr);
    assert.ok(writes > 5, `the server wrote ${writes} times meanwhile`);
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
