import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shippingFor } from '../../src/shipping.js';

test('shipping: every started kilogram counts', () => {
  assert.equal(shippingFor(3000, 1500), 599);
  assert.equal(shippingFor(3000, 2001), 699);
});

test('shipping: whole kilograms', () => {
  assert.equal(shippingFor(3000, 1000), 499);
  assert.equal(shippingFor(3000, 3000), 699);
});
