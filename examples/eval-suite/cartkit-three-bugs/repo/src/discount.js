/**
 * The amount a discount code takes off an order, in cents: never negative, never more than the
 * subtotal. Unknown codes take nothing off.
 *
 * - SAVE10: 10 % off orders of 50.00 or more;
 * - FLAT5: 5.00 off orders of 20.00 or more.
 * @param {number} subtotalCents
 * @param {string | undefined} code
 * @returns {number}
 */
export function discountFor(subtotalCents, code) {
  if (code === 'SAVE10' && subtotalCents > 5000) return Math.round(subtotalCents / 10);
  if (code === 'FLAT5' && subtotalCents >= 2000) return Math.min(500, subtotalCents);
  return 0;
}
