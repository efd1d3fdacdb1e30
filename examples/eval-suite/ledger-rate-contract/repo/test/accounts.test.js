import assert from 'node:assert/strict';
import { test } from 'node:test';
import { amortize, balance } from '../src/index.js';

const transactions = [
  { date: '2024-01-02', cents: 10000 },
  { date: '2024-01-15', cents: -2500 },
  { date: '2024-02-01', cents: -1000 },
];

test('balance: adds up every transaction', () => {
  assert.equal(balance(transactions), 6500);
});

test('balance: leaves out later transactions', () => {
  assert.equal(balance(transactions, '2024-01-20'), 7500);
});

test('schedule: repays the loan in full', () => {
  const rows = amortize(100000, 6, 12);
  assert.equal(rows.length, 12);
  assert.equal(rows.at(-1).balance, 0);
  assert.equal(rows.reduce((sum, row) => sum + row.principal, 0), 100000);
});
