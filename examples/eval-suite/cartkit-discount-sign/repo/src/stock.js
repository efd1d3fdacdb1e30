/**
 * Reserves `qty` units of `sku`: a new stock map, or an error when there are not enough.
 * @param {Record<string, number>} stock
 * @param {string} sku
 * @param {number} qty
 * @returns {{ ok: true, stock: Record<string, number> } | { ok: false, error: string }}
 */
export function reserve(stock, sku, qty) {
  if (!Number.isInteger(qty) || qty < 1) return { ok: false, error: 'qty must be a positive integer' };
  const have = stock[sku] ?? 0;
  if (qty > have) return { ok: false, error: `only ${have} of ${sku} left` };
  return { ok: true, stock: { ...stock, [sku]: have - qty } };
}
