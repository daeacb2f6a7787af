/**
 * docs/configuration.md: a value that cannot be used stops the command with a message naming
 * the variable. Checked on loadConfig and through the real command line.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config.ts';

const run = promisify(execFile);
const daybook = join(import.meta.dirname, '..', '..', 'bin', 'daybook');
const dir = mkdtempSync(join(tmpdir(), 'daybook-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('defaults', () => {
  const config = loadConfig({});
  assert.equal(config.port, 8080);
  assert.equal(config.logLevel, 'info');
  assert.equal(config.trustProxy, false);
});

test('accepted values', () => {
  const config = loadConfig({ PORT: '65535', LOG_LEVEL: 'warn', DAYBOOK_TRUST_PROXY: 'true', DAYBOOK_PG_POOL_SIZE: '3' });
  assert.deepEqual([config.port, config.logLevel, config.trustProxy], [65535, 'warn', true]);
});

const BAD: [Record<string, string>, string][] = [
  [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535 (got "70000")'],
  [{ PORT: 'http' }, 'PORT must be an integer from 0 to 65535 (got "http")'],
  [{ LOG_LEVEL: 'bogus' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "bogus")'],
  [{ DAYBOOK_TRUST_PROXY: 'yes' }, 'DAYBOOK_TRUST_PROXY must be one of true, false (got "yes")'],
  [{ DAYBOOK_PG_POOL_SIZE: '0' }, 'DAYBOOK_PG_POOL_SIZE must be an integer of at least 1 (got "0")'],
  [{ DAYBOOK_PG_POOL_SIZE: 'abc' }, 'DAYBOOK_PG_POOL_SIZE must be an integer of at least 1 (got "abc")'],
  [{ DAYBOOK_RATE_LIMIT_PER_MINUTE: '0' }, 'DAYBOOK_RATE_LIMIT_PER_MINUTE must be an integer of at least 1 (got "0")'],
];

for (const [env, message] of BAD) {
  test(`${Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')} is refused, naming the variable`, () => {
    assert.throws(() => loadConfig(env), { message });
  });
}

test('the command line stops with the message and status 1', async () => {
  const url = `sqlite:${join(dir, 'config.db')}`;
  for (const [env, message] of BAD.slice(0, 5)) {
    await assert.rejects(
      run(daybook, ['users', 'list'], { env: { ...process.env, ...env, DAYBOOK_DATABASE_URL: url } }),
      (err: { code: number; stderr: string }) => {
        assert.equal(err.code, 1);
        assert.equal(err.stderr.trim(), `daybook: ${message}`);
        return true;
      },
    );
  }
});
