import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addLine, reserve, subtotal } from '../src/index.js';

test('cart: merges lines of the same sku', () => {
  let cart = { lines: [] };
  cart = addLine(cart, { sku: 'mug', qty: 1, unitCents: 1200, grams: 300 });
  cart = addLine(cart, { sku: 'mug', qty: 2, unitCents: 1200, grams: 300 });
  assert.equal(cart.lines.length, 1);
  assert.equal(subtotal(cart), 3600);
});

test('stock: reserves what is there', () => {
  const result = reserve({ mug: 5 }, 'mug', 2);
  assert.deepEqual(result, { ok: true, stock: { mug: 3 } });
});

test('stock: refuses more than is there', () => {
  assert.equal(reserve({ mug: 5 }, 'mug', 6).ok, false);
});
