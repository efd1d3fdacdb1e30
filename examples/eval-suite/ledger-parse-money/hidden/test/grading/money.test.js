import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatMoney, parseMoney } from '../../src/money.js';

test('money: one decimal means tens of cents', () => {
  assert.equal(parseMoney('1.5'), 150);
  assert.equal(parseMoney('-0.5'), -50);
});

test('money: formatting and parsing agree', () => {
  for (const cents of [0, 1, 99, 100, 1234, -7, -100001]) assert.equal(parseMoney(formatMoney(cents)), cents);
});
