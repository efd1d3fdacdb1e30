import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discountFor } from '../../src/discount.js';

test('discount: SAVE10 from exactly 50.00', () => {
  assert.equal(discountFor(5000, 'SAVE10'), 500);
});

test('discount: SAVE10 not below 50.00', () => {
  assert.equal(discountFor(4999, 'SAVE10'), 0);
});
