import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clamp } from '../src/clamp.js';

test('clamp keeps a number inside [lo, hi]', () => {
  assert.equal(clamp(5, 0, 10), 5);
  assert.equal(clamp(-3, 0, 10), 0);
  assert.equal(clamp(42, 0, 10), 10);
});
