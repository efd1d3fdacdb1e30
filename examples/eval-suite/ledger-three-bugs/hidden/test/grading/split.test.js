import assert from 'node:assert/strict';
import { test } from 'node:test';
import { splitEvenly } from '../../src/split.js';

test('split: negative amounts add up', () => {
  const parts = splitEvenly(-100, 3);
  assert.equal(parts.reduce((a, b) => a + b, 0), -100);
  assert.ok(Math.max(...parts) - Math.min(...parts) <= 1);
});

test('split: parts differ by at most one cent', () => {
  assert.deepEqual(splitEvenly(200, 3), [67, 67, 66]);
});
