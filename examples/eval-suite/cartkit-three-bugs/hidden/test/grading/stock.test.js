import assert from 'node:assert/strict';
import { test } from 'node:test';
import { reserve } from '../../src/stock.js';

test('stock: the last units can be reserved', () => {
  assert.deepEqual(reserve({ mug: 5 }, 'mug', 5), { ok: true, stock: { mug: 0 } });
});

test('stock: an unknown sku has none', () => {
  assert.equal(reserve({}, 'cup', 1).ok, false);
});
