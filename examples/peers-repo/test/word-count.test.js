import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wordCount } from '../src/word-count.js';

test('wordCount treats any whitespace run as one separator', () => {
  assert.equal(wordCount('one two  three\nfour\tfive'), 5);
  assert.equal(wordCount('   '), 0);
});
