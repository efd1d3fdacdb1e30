import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wrap } from '../../src/wrap.js';

test('wrap: a line may be exactly as wide as the width', () => {
  assert.deepEqual(wrap('aaa bbb', 7), ['aaa bbb']);
  assert.deepEqual(wrap('aa bb cc dd', 5), ['aa bb', 'cc dd']);
});

test('wrap: a word longer than the width gets a line of its own', () => {
  assert.deepEqual(wrap('a verylongword b', 4), ['a', 'verylongword', 'b']);
});
