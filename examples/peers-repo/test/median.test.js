import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median } from '../src/median.js';

test('median sorts numbers numerically before taking the middle', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([10, 9, 2]), 9);
  assert.equal(median([4, 1, 3, 2]), 2.5);
});
