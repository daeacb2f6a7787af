/** `daybook demo`: the command line around the generator, run through runCli (what bin/daybook runs). */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { type Run, runDaybook } from '../cli/daybook-cli.ts';
import { DIALECTS, createTestDatabase, forEachDialect, type TestDatabase } from '../helper.ts';

const NOW = '2026-11-22T12:00:00Z';

/** A run that must succeed. */
async function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const run = await runDaybook(args, env);
  assert.equal(run.code, 0, run.stderr);
  return run;
}

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'daybook-demo-cli-'));
});
after(() => rm(dir, { recursive: true, force: true }));

const records = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

test('--out with --keys-from-seed writes the same file twice for the same seed, and prints the keys in it', async () => {
  const first = join(dir, 'first.ndjson');
  const second = join(dir, 'second.ndjson');
  const args = ['demo', '--users', '3', '--days', '10', '--seed', 'abc', '--now', NOW, '--keys-from-seed', '--out'];
  const { stdout } = await cli([...args, first]);
  await cli([...args, second]);
  const text = await readFile(first, 'utf8');
  assert.equal(text, await readFile(second, 'utf8'));
  const keys = records(text).filter((r) => r.type === 'apiKey');
  for (const key of keys) assert.ok(stdout.includes(key.key), `${key.key} is printed`);
  assert.match(stdout, /activity: \d+/);
  assert.match(stdout, /derived from the seed/);
});

test('without --keys-from-seed the same seed gives the same data with new random keys (docs/api.md, "Every request")', async () => {
  const files = [join(dir, 'random-1.ndjson'), join(dir, 'random-2.ndjson')];
  const outputs = [];
  for (const file of files)
    outputs.push(
      (await cli(['demo', '--users', '3', '--days', '4', '--seed', 'abc', '--now', NOW, '--out', file])).stdout,
    );
  const [a, b] = await Promise.all(files.map(async (f) => records(await readFile(f, 'utf8'))));
  const withoutKeys = (rs: { type: string }[]) => rs.filter((r) => r.type !== 'apiKey');
  assert.deepEqual(withoutKeys(a!), withoutKeys(b!));
  const keysOf = (rs: { type: string; key?: string }[]) => rs.filter((r) => r.type === 'apiKey').map((r) => r.key!);
  const [keysA, keysB] = [keysOf(a!), keysOf(b!)];
  assert.ok(keysA.length >= 3 && keysA.length === keysB.length);
  for (const key of keysA) {
    assert.match(key, /^dbk_demo_[0-9a-f]{40}$/, 'at least 128 random bits');
    assert.ok(!keysB.includes(key), `${key} is not repeated by the second run`);
    assert.ok(outputs[0]!.includes(key), 'and is printed');
  }
  assert.match(outputs[0]!, /API keys in the file \(plaintext, random\)/);
});

test('--out with a .json name writes a JSON document; "-" streams NDJSON to standard output', async () => {
  const file = join(dir, 'demo.json');
  await cli(['demo', '--users', '2', '--days', '3', '--now', NOW, '--out', file]);
  const doc = JSON.parse(await readFile(file, 'utf8'));
  assert.equal(doc.version, 1);
  assert.equal(doc.users.length, 2);
  const { stdout, stderr } = await cli(['demo', '--users', '2', '--days', '3', '--now', NOW, '--out', '-']);
  const lines = stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(lines.filter((l) => l.type === 'user').length, 2);
  assert.deepEqual(lines.filter((l) => l.type === 'activity').length, doc.activities.length);
  assert.match(stderr, /dbk_demo_/);
});

test('bad numbers are a usage error (exit 2)', async () => {
  const users = await runDaybook(['demo', '--users', '0', '--out', join(dir, 'x.ndjson')]);
  assert.equal(users.code, 2);
  assert.match(users.stderr, /--users must be a whole number from 1 to 1000/);
  const now = await runDaybook(['demo', '--now', 'yesterday', '--out', join(dir, 'x.ndjson')]);
  assert.equal(now.code, 2);
  assert.match(now.stderr, /--now must be an ISO 8601 instant/);
});

forEachDialect('daybook demo without --out', (dialect) => {
  let db: TestDatabase;
  const url = () => (dialect === 'sqlite' ? `sqlite:${join(dir, `imported-${DIALECTS.indexOf(dialect)}.db`)}` : db.url);
  before(async () => {
    db = await createTestDatabase(dialect);
  });
  after(() => db.drop());

  test('imports into the configured database and prints keys that are stored there', async () => {
    const { stdout } = await cli(['demo', '--users', '2', '--days', '5', '--now', NOW], {
      DAYBOOK_DATABASE_URL: url(),
    });
    assert.match(stdout, /imported the demo workspace \(user: 2, .*activity: \d+/);
    assert.match(stdout, /built \d+ summaries/);
    const printed = [...stdout.matchAll(/dbk_demo_[0-9a-f]+/g)].map((m) => m[0]);
    assert.ok(printed.length >= 3);
    const { stdout: list } = await cli(['keys', 'list', '--json'], { DAYBOOK_DATABASE_URL: url() });
    assert.equal((JSON.parse(list) as unknown[]).length, printed.length);
  });
});
