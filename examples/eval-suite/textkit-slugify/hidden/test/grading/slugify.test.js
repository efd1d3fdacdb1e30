import assert from 'node:assert/strict';
import { test } from 'node:test';
import { slugify } from '../../src/slugify.js';

test('slugify: no dash at either end', () => {
  assert.equal(slugify('Hello, World!'), 'hello-world');
  assert.equal(slugify('  -- draft --  '), 'draft');
});

test('slugify: one dash for a run of separators', () => {
  assert.equal(slugify('a  --  b'), 'a-b');
});

test('slugify: strips accents', () => {
  assert.equal(slugify('Crème brûlée'), 'creme-brulee');
});
