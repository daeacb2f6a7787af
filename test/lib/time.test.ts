/**
 * localTimeOn (src/lib/time.ts): the instant a task's local time stands for (its noon, or 09:00
 * for the minutes recorded with it), remembered per zone, date and time.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { localNoon, localTimeOn } from '../../src/lib/time.ts';

describe('localTimeOn', () => {
  test('the same local time is another instant in another zone, and stays so when asked again', () => {
    for (let round = 0; round < 2; round++) {
      assert.equal(localTimeOn('2026-11-20', '09:00', 'Europe/Berlin'), Date.parse('2026-11-20T08:00:00Z'));
      assert.equal(localTimeOn('2026-11-20', '09:00', 'America/New_York'), Date.parse('2026-11-20T14:00:00Z'));
      assert.equal(localTimeOn('2026-11-20', '09:00', 'UTC'), Date.parse('2026-11-20T09:00:00Z'));
    }
  });

  test('another date or time of the same zone is its own instant', () => {
    assert.equal(localTimeOn('2026-11-21', '09:00', 'Europe/Berlin'), Date.parse('2026-11-21T08:00:00Z'));
    assert.equal(localNoon('2026-11-20', 'Europe/Berlin'), Date.parse('2026-11-20T11:00:00Z'));
    // Summer time: the offset of that day, not of a day asked before.
    assert.equal(localTimeOn('2026-07-01', '09:00', 'Europe/Berlin'), Date.parse('2026-07-01T07:00:00Z'));
  });

  test('a time the zone skipped is the one after the change', () => {
    // Clocks in Berlin went from 02:00 to 03:00 on 2026-03-29: 02:30 did not happen.
    assert.equal(localTimeOn('2026-03-29', '02:30', 'Europe/Berlin'), Date.parse('2026-03-29T01:30:00Z'));
  });
});
