/** The pure rules of delivery: which addresses are public, URL checks, masking, the retry schedule. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isPublicAddress, maskUrl, urlProblem } from '../../src/services/delivery/address.ts';
import { GIVE_UP_AFTER_MS, nextAttemptAt, retryAfterMs, retryDelay } from '../../src/services/delivery/schedule.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('addresses a delivery may reach', () => {
  const refused = [
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '127.0.0.1',
    '127.8.9.10',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '2001:db8::1',
    'not an address',
  ];
  for (const address of refused) {
    test(`${address} is not public`, () => assert.equal(isPublicAddress(address), false));
  }
  for (const address of ['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700::6810:84e5', '::ffff:8.8.8.8']) {
    test(`${address} is public`, () => assert.equal(isPublicAddress(address), true));
  }
});

describe('destination URLs as written', () => {
  test('https on a public host passes; http only where private addresses are allowed', () => {
    assert.equal(urlProblem('https://hooks.slack.com/services/T/B/X', false), null);
    assert.equal(urlProblem('http://hooks.slack.com/services/T/B/X', false), 'url must be an https URL');
    assert.equal(urlProblem('http://127.0.0.1:9000/hook', true), null);
    assert.equal(urlProblem('ftp://example.com/x', true), 'url must be an http or https URL');
  });

  test('not a URL, or one with credentials', () => {
    assert.equal(
      urlProblem('hooks.slack.com/x', false),
      'url must be an absolute URL such as https://hooks.example.com/…',
    );
    assert.equal(urlProblem('https://user:secret@example.com/x', false), 'url must not hold a user name or password');
  });

  test('address literals in every spelling the URL parser accepts', () => {
    const refusal = (address: string) => `url must not point to a private, loopback or link-local address (${address})`;
    assert.equal(urlProblem('https://127.0.0.1/x', false), refusal('127.0.0.1'));
    // The WHATWG parser reads these as 127.0.0.1.
    assert.equal(urlProblem('https://2130706433/x', false), refusal('127.0.0.1'));
    assert.equal(urlProblem('https://0x7f.1/x', false), refusal('127.0.0.1'));
    assert.equal(urlProblem('https://[::1]/x', false), refusal('::1'));
    assert.equal(urlProblem('https://[::ffff:127.0.0.1]/x', false), refusal('::ffff:7f00:1'));
    assert.equal(urlProblem('https://169.254.169.254/latest/meta-data', false), refusal('169.254.169.254'));
    assert.equal(urlProblem('https://127.0.0.1/x', true), null);
  });

  test('answers show the scheme, host and last 4 characters only', () => {
    assert.equal(maskUrl('https://hooks.slack.com/services/T0000/B0000/abcdWXYZ'), 'https://hooks.slack.com/…WXYZ');
    assert.equal(maskUrl('https://example.com/short'), 'https://example.com/…');
    assert.equal(maskUrl('https://example.com:8443/hooks/daybook?token=s3cr3tvalue'), 'https://example.com:8443/…alue');
  });
});

describe('the retry schedule', () => {
  test('5 s, 5 min, 30 min, 2 h, 5 h, 10 h after the previous attempt, then every 10 h', () => {
    assert.deepEqual([1, 2, 3, 4, 5, 6, 7, 12].map(retryDelay), [
      5 * SECOND,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      10 * HOUR,
      10 * HOUR,
    ]);
  });

  test('a delivery is given up once its next attempt would fall after it is 3 days old', () => {
    const created = 0;
    assert.equal(nextAttemptAt(1, created, created, null), 5 * SECOND);
    assert.equal(nextAttemptAt(8, GIVE_UP_AFTER_MS - 10 * HOUR, created, null), GIVE_UP_AFTER_MS);
    assert.equal(nextAttemptAt(8, GIVE_UP_AFTER_MS - 10 * HOUR + 1, created, null), null);
  });

  test("a 429's Retry-After replaces the step: seconds or an HTTP date, from 1 s to 24 h", () => {
    const now = Date.parse('2026-11-24T12:00:00Z');
    assert.equal(retryAfterMs('120', now), 120 * SECOND);
    assert.equal(retryAfterMs(' 30 ', now), 30 * SECOND);
    assert.equal(retryAfterMs('Tue, 24 Nov 2026 12:10:00 GMT', now), 10 * MINUTE);
    assert.equal(retryAfterMs('0', now), SECOND);
    assert.equal(retryAfterMs('Tue, 24 Nov 2026 11:00:00 GMT', now), SECOND);
    assert.equal(retryAfterMs('999999', now), 24 * HOUR);
    assert.equal(retryAfterMs('soon', now), null);
    assert.equal(retryAfterMs(undefined, now), null);
    assert.equal(nextAttemptAt(2, now, now, 120 * SECOND), now + 120 * SECOND);
  });
});
