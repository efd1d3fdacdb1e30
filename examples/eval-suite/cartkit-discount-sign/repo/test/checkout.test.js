import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkout, discountFor, shippingFor } from '../src/index.js';

test('discount: unknown codes take nothing off', () => {
  assert.equal(discountFor(9000, 'NOPE'), 0);
});

test('shipping: free from 100.00', () => {
  assert.equal(shippingFor(12000, 5000), 0);
});

test('shipping: 4.99 for a light parcel', () => {
  assert.equal(shippingFor(3000, 800), 499);
});

test('checkout: adds shipping and tax', () => {
  const cart = { lines: [{ sku: 'mug', qty: 2, unitCents: 1200, grams: 300 }] };
  assert.deepEqual(checkout(cart, { taxRate: 0.1 }), { subtotal: 2400, discount: 0, shipping: 499, tax: 240, total: 3139 });
});
