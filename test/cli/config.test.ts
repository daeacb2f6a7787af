/**
 * docs/configuration.md: a value that cannot be used stops the command with a message naming
 * the variable. Checked on loadConfig and through the command line (runCli, what bin/daybook runs).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { demoSetting, loadConfig, pgConnectTimeoutMs } from '../../src/config.ts';
import { runDaybook } from './daybook-cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'daybook-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('defaults', () => {
  const config = loadConfig({});
  assert.equal(config.port, 8080);
  assert.equal(config.logLevel, 'info');
  assert.equal(config.trustProxy, false);
});

test('accepted values', () => {
  const config = loadConfig({
    PORT: '65535',
    LOG_LEVEL: 'warn',
    DAYBOOK_TRUST_PROXY: 'true',
    DAYBOOK_PG_POOL_SIZE: '3',
  });
  assert.deepEqual([config.port, config.logLevel, config.trustProxy], [65535, 'warn', true]);
});

const BAD: [Record<string, string>, string][] = [
  [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535 (got "70000")'],
  [{ PORT: 'http' }, 'PORT must be an integer from 0 to 65535 (got "http")'],
  [{ LOG_LEVEL: 'bogus' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent (got "bogus")'],
  [{ DAYBOOK_TRUST_PROXY: 'yes' }, 'DAYBOOK_TRUST_PROXY must be one of true, false (got "yes")'],
  [{ DAYBOOK_PG_POOL_SIZE: '0' }, 'DAYBOOK_PG_POOL_SIZE must be an integer of at least 1 (got "0")'],
  [{ DAYBOOK_PG_POOL_SIZE: 'abc' }, 'DAYBOOK_PG_POOL_SIZE must be an integer of at least 1 (got "abc")'],
  [{ DAYBOOK_PG_WRITERS: '0' }, 'DAYBOOK_PG_WRITERS must be an integer of at least 1 (got "0")'],
  [
    { DAYBOOK_PG_STATEMENT_TIMEOUT_MS: '50' },
    'DAYBOOK_PG_STATEMENT_TIMEOUT_MS must be an integer from 100 to 86400000 (got "50")',
  ],
  [
    { DAYBOOK_PG_CONNECT_TIMEOUT_MS: '0' },
    'DAYBOOK_PG_CONNECT_TIMEOUT_MS must be an integer from 100 to 86400000 (got "0")',
  ],
  [{ DAYBOOK_RATE_LIMIT_PER_MINUTE: '0' }, 'DAYBOOK_RATE_LIMIT_PER_MINUTE must be an integer of at least 1 (got "0")'],
  // Digits only: Number() would read these as 80 and 1000.
  [{ PORT: '0x50' }, 'PORT must be an integer from 0 to 65535 (got "0x50")'],
  [{ PORT: '1e3' }, 'PORT must be an integer from 0 to 65535 (got "1e3")'],
  // A timer cannot wait longer than 2^31 - 1 ms; a longer one would fire at once, over and over.
  [
    { DAYBOOK_SUMMARY_INTERVAL_SECONDS: '2592000' },
    'DAYBOOK_SUMMARY_INTERVAL_SECONDS must be an integer from 0 to 2147483 (got "2592000")',
  ],
  [{ DAYBOOK_DEMO: 'no' }, 'DAYBOOK_DEMO must be one of on, off, true, false (got "no")'],
  [
    { DAYBOOK_REDIS_URL: 'notaurl' },
    'DAYBOOK_REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379 (got "no URL")',
  ],
  [
    { DAYBOOK_REDIS_URL: 'http://user:secret@cache:6379' },
    'DAYBOOK_REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379 (got "http:")',
  ],
];

test('the defaults and limits the documentation gives', () => {
  const config = loadConfig({});
  assert.deepEqual(
    [
      config.rateLimitPerMinute,
      config.authFailuresPerMinute,
      config.keyCacheMs,
      config.summaryIntervalSeconds,
      config.redisUrl,
      config.pgStatementTimeoutMs,
      pgConnectTimeoutMs({}),
    ],
    [120, 30, 2000, 300, null, 5000, 5000],
  );
  assert.equal(loadConfig({ DAYBOOK_SUMMARY_INTERVAL_SECONDS: '2147483' }).summaryIntervalSeconds, 2147483);
  assert.equal(
    loadConfig({ DAYBOOK_REDIS_URL: 'rediss://:pw@cache.internal:6380/2' }).redisUrl,
    'rediss://:pw@cache.internal:6380/2',
  );
});

test('DAYBOOK_DEMO: off and false turn the first-start demo off; on, true and unset leave it on', () => {
  assert.deepEqual(
    ['off', 'false', 'on', 'true', undefined].map((v) => demoSetting(v === undefined ? {} : { DAYBOOK_DEMO: v })),
    [false, false, true, true, true],
  );
});

test('a database URL without a scheme is refused, its text shown only up to a colon', async () => {
  const { openStorage } = await import('../../src/storage/database.ts');
  assert.throws(() => openStorage('./data/daybook.db'), {
    message:
      'DAYBOOK_DATABASE_URL must start with sqlite: or postgres:// such as sqlite:./data/daybook.db (got "./data/daybook.db")',
  });
  assert.throws(() => openStorage('mysql://root:secret@db/x'), { message: /\(got "mysql:…"\)$/ });
});

for (const [env, message] of BAD) {
  test(`${Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ')} is refused, naming the variable`, () => {
    assert.throws(() => loadConfig(env), { message });
  });
}

test('the command line stops with the message and status 1', async () => {
  const url = `sqlite:${join(dir, 'config.db')}`;
  for (const [env, message] of BAD.slice(0, 5)) {
    const run = await runDaybook(['users', 'list'], { ...env, DAYBOOK_DATABASE_URL: url });
    assert.equal(run.code, 1);
    assert.equal(run.stderr.trim(), `daybook: ${message}`);
  }
});
