import assert from 'node:assert/strict';
import { test } from 'node:test';
import { balance } from '../../src/balance.js';

const transactions = [
  { date: '2024-01-02', cents: 10000 },
  { date: '2024-01-15', cents: -2500 },
];

test('balance: includes the day itself', () => {
  assert.equal(balance(transactions, '2024-01-15'), 7500);
});

test('balance: zero before the first transaction', () => {
  assert.equal(balance(transactions, '2023-12-31'), 0);
});
