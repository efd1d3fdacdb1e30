import assert from 'node:assert/strict';
import { test } from 'node:test';
import { truncate } from '../../src/truncate.js';

test('truncate: text that fits is unchanged', () => {
  assert.equal(truncate('hello', 5), 'hello');
  assert.equal(truncate('', 0), '');
});

test('truncate: the result is never longer than the limit', () => {
  for (let max = 0; max < 12; max++) assert.ok(truncate('hello world', max).length <= max);
});
