import assert from 'node:assert/strict';
import { test } from 'node:test';
import { monthlyPayment } from '../../src/interest.js';
import { amortize } from '../../src/schedule.js';

test('interest: the rate is a fraction', () => {
  assert.equal(monthlyPayment(100000, 0.06, 12), 8607);
  assert.equal(monthlyPayment(500000, 0.12, 24), 23537);
});

test('interest: no interest means equal parts', () => {
  assert.equal(monthlyPayment(120000, 0, 12), 10000);
});

test('interest: schedule payments are the monthly payment', () => {
  const rows = amortize(100000, 6, 12);
  for (const row of rows.slice(0, -1)) assert.equal(row.payment, 8607);
  assert.equal(rows[0].interest, 500);
});
