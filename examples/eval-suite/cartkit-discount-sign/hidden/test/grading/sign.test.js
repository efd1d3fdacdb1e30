import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkout } from '../../src/checkout.js';
import { discountFor } from '../../src/discount.js';
import { summarize } from '../../src/checkout.js';

test('sign: discountFor returns a positive amount', () => {
  assert.equal(discountFor(8000, 'SAVE10'), 800);
  assert.equal(discountFor(3000, 'FLAT5'), 500);
});

test('sign: summarize takes the discount off before tax', () => {
  assert.equal(summarize({ subtotal: 10000, discount: 1000, shipping: 0, taxRate: 0.1 }).total, 9900);
});

test('sign: checkout with a code', () => {
  const cart = { lines: [{ sku: 'lamp', qty: 1, unitCents: 8000, grams: 1800 }] };
  const summary = checkout(cart, { code: 'SAVE10', taxRate: 0.1 });
  assert.equal(summary.total, 7200 + 599 + 720);
});
