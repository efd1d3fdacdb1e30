import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDuration } from '../src/parse-duration.js';

test('parseDuration handles hours, minutes and seconds', () => {
  assert.equal(parseDuration('90s'), 90);
  assert.equal(parseDuration('15m'), 900);
  assert.equal(parseDuration('1h30m'), 5400);
});
