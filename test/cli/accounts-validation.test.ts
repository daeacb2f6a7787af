/**
 * The account commands (users, teams, keys) accept only what the dataset schema accepts, so that
 * `daybook export` of what they wrote always imports again; run through runCli in this process
 * (what bin/daybook runs; test/cli/cli.test.ts runs the program itself), against both databases.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openStorage } from '../../src/storage/database.ts';
import { forEachDialect } from '../helper.ts';
import { daybook, emptyDatabase } from './daybook-cli.ts';

/** Every row the account commands write, to see that a refused command changed nothing. */
async function accountRows(url: string): Promise<unknown> {
  const storage = openStorage(url);
  try {
    return {
      users: await storage.db.selectFrom('users').selectAll().orderBy('id').execute(),
      teams: await storage.db.selectFrom('teams').selectAll().orderBy('id').execute(),
      members: await storage.db.selectFrom('team_members').selectAll().orderBy('team_id').orderBy('user_id').execute(),
      keys: await storage.db.selectFrom('api_keys').selectAll().orderBy('id').execute(),
    };
  } finally {
    await storage.close();
  }
}

const x = (n: number) => 'x'.repeat(n);

test('every account command has a description in --help', async () => {
  const url = 'sqlite::memory:';
  for (const command of [
    ['users', 'create'],
    ['users', 'list'],
    ['users', 'update'],
    ['teams', 'create'],
    ['teams', 'list'],
    ['teams', 'add-member'],
    ['teams', 'set-member-status'],
    ['keys', 'create'],
    ['keys', 'list'],
    ['keys', 'revoke'],
  ]) {
    const help = await daybook(url, ...command, '--help');
    assert.equal(help.code, 0, help.stderr);
    // Commander prints "Usage: …", a blank line, then the description when there is one.
    const [, blank, description] = help.stdout.split('\n');
    assert.equal(blank, '', command.join(' '));
    assert.ok(
      description && !/^(Arguments|Options):/.test(description),
      `${command.join(' ')} has no description:\n${help.stdout}`,
    );
    for (const line of help.stdout.split('\n').filter((l) => /^ {2}--/.test(l))) {
      assert.match(line, /^ {2}--\S+(?: <[^>]+>)? +\S/, `${command.join(' ')}: an option without help text: ${line}`);
    }
  }
});

forEachDialect('account commands check their values against the dataset schema', (dialect) => {
  let dir: string;
  let db: { url: string; drop(): Promise<void> };
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'daybook-acc-'));
    db = await emptyDatabase(dialect, dir, 'acc');
    const user = await daybook(db.url, 'users', 'create', '--id', 'u2', '--email', 'u2@example.com', '--handle', 'u2');
    assert.equal(user.code, 0, user.stderr);
    const team = await daybook(db.url, 'teams', 'create', '--id', 't1', '--name', 'One');
    assert.equal(team.code, 0, team.stderr);
  });
  after(async () => {
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const refused: [string, string[], RegExp][] = [
    [
      'an e-mail address without a dotted domain',
      ['users', 'create', '--email', 'root@localhost', '--id', 'root'],
      /^--email: must be an e-mail address with a dotted domain, such as ada@example.com$/,
    ],
    [
      'an e-mail address that is no address',
      ['users', 'create', '--email', 'not-an-email'],
      /^--email: must be an e-mail address with a dotted domain, such as ada@example.com$/,
    ],
    [
      'an id with a space, a slash and a non-ASCII letter',
      ['users', 'create', '--email', 'id@example.com', '--id', 'has space/é'],
      /^--id: may hold only letters A-Z and a-z, digits and _ \. : -$/,
    ],
    [
      'an id of 129 characters',
      ['users', 'create', '--email', 'id@example.com', '--id', x(129)],
      /^--id: must NOT have more than 128 characters$/,
    ],
    [
      'a name of 201 characters',
      ['users', 'create', '--email', 'n@example.com', '--name', x(201)],
      /^--name: must NOT have more than 200 characters$/,
    ],
    [
      'a display name of 201 characters',
      ['users', 'create', '--email', 'n@example.com', '--display-name', x(201)],
      /^--display-name: must NOT have more than 200 characters$/,
    ],
    [
      'a handle of 41 characters',
      ['users', 'create', '--email', 'h@example.com', '--handle', x(41)],
      /^--handle: must be 2 to 40 of a-z, 0-9 and _ \. -$/,
    ],
    [
      'an update to a bad handle',
      ['users', 'update', 'u2', '--handle', 'NOT VALID!'],
      /^--handle: must be 2 to 40 of a-z, 0-9 and _ \. -$/,
    ],
    [
      'an update to an empty handle',
      ['users', 'update', 'u2', '--handle', ''],
      /^--handle: must be 2 to 40 of a-z, 0-9 and _ \. -$/,
    ],
    [
      'an update to a bad e-mail address',
      ['users', 'update', 'u2', '--email', 'not-an-email'],
      /^--email: must be an e-mail address with a dotted domain, such as ada@example.com$/,
    ],
    [
      'an update to a name of 201 characters',
      ['users', 'update', 'u2', '--plan', 'pro', '--name', x(201)],
      /^--name: must NOT have more than 200 characters$/,
    ],
    [
      'an update to a display name of 201 characters',
      ['users', 'update', 'u2', '--display-name', x(201)],
      /^--display-name: must NOT have more than 200 characters$/,
    ],
    ['an empty team name', ['teams', 'create', '--name', ''], /^--name: must NOT have fewer than 1 characters$/],
    [
      'a team name of 101 characters',
      ['teams', 'create', '--name', x(101)],
      /^--name: must NOT have more than 100 characters$/,
    ],
    [
      'a team id with a space',
      ['teams', 'create', '--name', 'Two', '--id', 't 2'],
      /^--id: may hold only letters A-Z and a-z, digits and _ \. : -$/,
    ],
    [
      'an empty key name',
      ['keys', 'create', '--user', 'u2', '--name', ''],
      /^--name: must NOT have fewer than 1 characters$/,
    ],
    [
      'a key name of 101 characters',
      ['keys', 'create', '--user', 'u2', '--name', x(101)],
      /^--name: must NOT have more than 100 characters$/,
    ],
  ];
  for (const [what, args, message] of refused) {
    test(`${what} is refused: exit 2, one line naming the option, nothing changed`, async () => {
      const rows = await accountRows(db.url);
      const run = await daybook(db.url, ...args);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /^daybook: [^\n]*\n$/, 'one line, no stack');
      assert.match(run.stderr.slice('daybook: '.length, -1), message);
      assert.deepEqual(await accountRows(db.url), rows);
    });
  }

  test('the clearer messages stay: timezone, daily target, plan, week start, role, status', async () => {
    for (const [args, message] of [
      [
        ['users', 'create', '--email', 'm@example.com', '--timezone', 'Mars/Olympus'],
        /--timezone must be an IANA timezone/,
      ],
      [['users', 'update', 'u2', '--daily-target', '1441'], /--daily-target must be 1 to 1440 minutes/],
      [['users', 'update', 'u2', '--plan', 'gold'], /--plan must be one of free, core, pro \(got "gold"\)/],
      [
        ['users', 'create', '--email', 'm@example.com', '--week-start', 'friday'],
        /--week-start must be one of monday, sunday/,
      ],
      [
        ['teams', 'add-member', '--team', 't1', '--user', 'u2', '--role', 'owner'],
        /--role must be one of member, admin/,
      ],
      [
        ['teams', 'set-member-status', '--team', 't1', '--user', 'u2', '--status', 'gone'],
        /--status must be one of active, inactive/,
      ],
    ] as [string[], RegExp][]) {
      const run = await daybook(db.url, ...args);
      assert.deepEqual([run.code, run.stdout], [2, ''], run.stderr);
      assert.match(run.stderr, message);
    }
  });

  test('users update checks the stored user with the changes: a stored value the format rejects is named', async () => {
    // A user written before these checks existed (straight into the database here).
    const storage = openStorage(db.url);
    try {
      await storage.db
        .insertInto('users')
        .values({
          id: 'u_old',
          email: 'old@localhost',
          name: null,
          display_name: null,
          handle: null,
          timezone: 'UTC',
          plan: 'core',
          daily_target_minutes: 480,
          week_start: 'monday',
          created_at: Date.parse('2026-01-01T00:00:00Z'),
        })
        .execute();
    } finally {
      await storage.close();
    }
    const rows = await accountRows(db.url);
    const blocked = await daybook(db.url, 'users', 'update', 'u_old', '--plan', 'pro');
    assert.equal(blocked.code, 2);
    assert.equal(
      blocked.stderr,
      'daybook: the stored user "u_old" does not fit the dataset format (email: must be an e-mail address with a dotted domain, such as ada@example.com), so an export would not import; give a new --email\n',
    );
    assert.deepEqual(await accountRows(db.url), rows);
    const repaired = await daybook(db.url, 'users', 'update', 'u_old', '--plan', 'pro', '--email', 'old@example.com');
    assert.deepEqual([repaired.code, repaired.stdout], [0, 'updated u_old\n'], repaired.stderr);
  });

  test('values at the edges of the schema are accepted', async () => {
    const longId = `u.${x(126)}`;
    const created = await daybook(
      db.url,
      'users',
      'create',
      '--id',
      longId,
      '--email',
      'first.last+tag@mail.example.co.uk',
      '--name',
      'ß'.repeat(199) + '😀',
      '--display-name',
      '😀'.repeat(200),
      '--handle',
      `a_.-${'z'.repeat(36)}`,
      '--timezone',
      'America/St_Johns',
      '--plan',
      'free',
      '--daily-target',
      '1440',
      '--week-start',
      'sunday',
    );
    assert.deepEqual([created.code, created.stdout], [0, `${longId}\n`], created.stderr);
    const short = await daybook(
      db.url,
      'users',
      'create',
      '--id',
      'A:1',
      '--email',
      'a@b.co',
      '--handle',
      '09',
      '--name',
      '',
    );
    assert.deepEqual([short.code, short.stdout], [0, 'A:1\n'], short.stderr);
    const updated = await daybook(
      db.url,
      'users',
      'update',
      'u2',
      '--email',
      'U2@Example.COM',
      '--name',
      'Zoë Ångström',
      '--display-name',
      '',
      '--handle',
      x(40),
      '--daily-target',
      '1',
    );
    assert.deepEqual([updated.code, updated.stdout], [0, 'updated u2\n'], updated.stderr);

    const team = await daybook(db.url, 'teams', 'create', '--id', `t-${x(126)}`, '--name', '団'.repeat(100));
    assert.deepEqual([team.code, team.stdout], [0, `t-${x(126)}\n`], team.stderr);
    const generatedTeam = await daybook(db.url, 'teams', 'create', '--name', 'T');
    assert.equal(generatedTeam.code, 0, generatedTeam.stderr);
    assert.match(generatedTeam.stdout, /^t_[A-Za-z0-9]+\n$/);
    for (const user of [longId, 'A:1', 'u2']) {
      const added = await daybook(
        db.url,
        'teams',
        'add-member',
        '--team',
        `t-${x(126)}`,
        '--user',
        user,
        '--role',
        'admin',
      );
      assert.equal(added.code, 0, added.stderr);
    }
    const inactive = await daybook(
      db.url,
      'teams',
      'set-member-status',
      '--team',
      `t-${x(126)}`,
      '--user',
      'u2',
      '--status',
      'inactive',
    );
    assert.equal(inactive.code, 0, inactive.stderr);
    const key = await daybook(
      db.url,
      'keys',
      'create',
      '--user',
      longId,
      '--name',
      '🔑'.repeat(100),
      '--scopes',
      'user:read',
    );
    assert.equal(key.code, 0, key.stderr);
    const oneChar = await daybook(db.url, 'keys', 'create', '--user', 'A:1', '--name', 'k');
    assert.equal(oneChar.code, 0, oneChar.stderr);
    const keyId = (await daybook(db.url, 'keys', 'list', '--user', 'A:1')).stdout.split('\n')[1]!.split('\t')[0]!;
    const revoked = await daybook(db.url, 'keys', 'revoke', keyId);
    assert.deepEqual([revoked.code, revoked.stdout], [0, `revoked ${keyId}\n`], revoked.stderr);
  });

  test('what the account commands wrote exports, and imports into an empty database unchanged', async () => {
    const file = join(dir, `accounts-${dialect}.ndjson`);
    const exported = await daybook(db.url, 'export', '--out', file);
    assert.equal(exported.code, 0, exported.stderr);
    const records = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const byId = (type: string, id: string) => records.find((r) => r.type === type && r.id === id);
    assert.equal(byId('user', `u.${x(126)}`)?.displayName, '😀'.repeat(200), '200 code points, 400 UTF-16 units');
    assert.equal(byId('user', 'u2')?.handle, x(40));
    assert.equal(byId('team', `t-${x(126)}`)?.name, '団'.repeat(100));
    assert.ok(records.some((r) => r.type === 'apiKey' && r.name === '🔑'.repeat(100)));

    const copy = await emptyDatabase(dialect, dir, 'acc');
    try {
      const imported = await daybook(copy.url, 'import', file);
      assert.equal(imported.code, 0, imported.stderr);
      const again = join(dir, `accounts-${dialect}-again.ndjson`);
      assert.equal((await daybook(copy.url, 'export', '--out', again)).code, 0);
      assert.equal(readFileSync(again, 'utf8'), readFileSync(file, 'utf8'));
    } finally {
      await copy.drop();
    }
  });
});
