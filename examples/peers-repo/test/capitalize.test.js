import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capitalize } from '../src/capitalize.js';

test('capitalize upper-cases only the first letter', () => {
  assert.equal(capitalize('colony'), 'Colony');
  assert.equal(capitalize('a'), 'A');
  assert.equal(capitalize(''), '');
});
