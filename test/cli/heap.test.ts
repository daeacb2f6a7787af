/** The bulk commands' periodic full collection (src/lib/heap.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collectGarbageEvery } from '../../src/lib/heap.ts';

test('a full collection runs once per interval of records, not per call', () => {
  const holder = globalThis as { gc?: () => void };
  const before = holder.gc;
  let collections = 0;
  holder.gc = () => {
    collections++;
  };
  try {
    const collect = collectGarbageEvery(200_000);
    for (const done of [500, 100_000, 199_999, 200_000, 200_500, 399_999, 400_000, 400_500, 650_000]) collect(done);
    assert.equal(collections, 3, 'at 200,000, 400,000 and 650,000');
  } finally {
    holder.gc = before;
  }
});

test('without an exposed gc it does nothing', () => {
  const holder = globalThis as { gc?: () => void };
  const before = holder.gc;
  holder.gc = undefined;
  try {
    const collect = collectGarbageEvery(1);
    assert.doesNotThrow(() => collect(10));
  } finally {
    holder.gc = before;
  }
});
