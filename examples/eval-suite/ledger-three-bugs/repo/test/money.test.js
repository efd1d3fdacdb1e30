import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMoney, parseMoney, splitEvenly } from '../src/index.js';

test('money: parses whole amounts and cents', () => {
  assert.equal(parseMoney('12.34'), 1234);
  assert.equal(parseMoney('7'), 700);
});

test('money: refuses what is not an amount', () => {
  assert.equal(parseMoney('12,34'), null);
  assert.equal(parseMoney('abc'), null);
});

test('money: formats cents with two decimals', () => {
  assert.equal(formatMoney(1234), '12.34');
  assert.equal(formatMoney(-5), '-0.05');
});

test('split: splits an amount into equal parts', () => {
  assert.deepEqual(splitEvenly(100, 3), [34, 33, 33]);
});
