/**
 * Command-line messages a person can act on: the version, a database that cannot be reached
 * named with the setting that points at it, and a new empty database said aloud.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, test } from 'node:test';
import { runCli } from '../../src/cli/run.ts';

const dir = mkdtempSync(join(tmpdir(), 'daybook-cli-messages-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function cli(args: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const stream = (write: (text: string) => void) =>
    new Writable({
      write(chunk, _encoding, done) {
        write(String(chunk));
        done();
      },
    });
  const code = await runCli(args, {
    stdout: stream((t) => {
      stdout += t;
    }),
    stderr: stream((t) => {
      stderr += t;
    }),
    env: { ...process.env, ...env },
  });
  return { code, stdout, stderr };
}

test('--version prints the version of the package', async () => {
  const { version } = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'));
  const res = await cli(['--version'], {});
  assert.deepEqual([res.code, res.stdout.trim()], [0, version]);
});

test('an unreachable PostgreSQL is named with its address and the setting, exit 1', async () => {
  const res = await cli(['users', 'list'], { DAYBOOK_DATABASE_URL: 'postgres://daybook@127.0.0.1:9/none' });
  assert.equal(res.code, 1);
  assert.match(res.stderr, /^daybook: cannot reach PostgreSQL at 127\.0\.0\.1:9 \(DAYBOOK_DATABASE_URL\)/);
});

test('a command that creates a new empty SQLite database says so, once', async () => {
  const file = join(dir, 'new.db');
  const first = await cli(['users', 'list'], { DAYBOOK_DATABASE_URL: `sqlite:${file}` });
  assert.equal(first.code, 0);
  assert.equal(first.stderr, `daybook: no database at ${file}: creating a new, empty one (DAYBOOK_DATABASE_URL)\n`);
  assert.ok(existsSync(file));
  const second = await cli(['users', 'list'], { DAYBOOK_DATABASE_URL: `sqlite:${file}` });
  assert.equal(second.stderr, '');
});
