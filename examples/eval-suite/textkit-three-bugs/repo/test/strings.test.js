import assert from 'node:assert/strict';
import { test } from 'node:test';
import { camelCase, slugify, snakeCase, truncate, words, wrap } from '../src/index.js';

test('slugify: joins words with dashes', () => {
  assert.equal(slugify('Hello World'), 'hello-world');
});

test('wrap: breaks lines between words', () => {
  assert.deepEqual(wrap('the quick brown fox', 10), ['the quick', 'brown fox']);
});

test('wrap: refuses a width below one', () => {
  assert.throws(() => wrap('a b', 0), RangeError);
});

test('truncate: cuts long text with an ellipsis', () => {
  assert.equal(truncate('hello world', 8), 'hello w…');
});

test('case: splits camelCase and snake_case into words', () => {
  assert.deepEqual(words('parseHTTPRequest_now'), ['parse', 'httprequest', 'now']);
});

test('case: converts between camelCase and snake_case', () => {
  assert.equal(camelCase('user_id'), 'userId');
  assert.equal(snakeCase('userId'), 'user_id');
});
