/**
 * Shipping in cents: free from a 100.00 subtotal; otherwise 4.99 for the first kilogram and 1.00 for
 * every kilogram or part of one after it.
 * @param {number} subtotalCents
 * @param {number} grams
 * @returns {number}
 */
export function shippingFor(subtotalCents, grams) {
  if (subtotalCents >= 10000) return 0;
  const extraKilos = Math.max(0, Math.floor((grams - 1000) / 1000));
  return 499 + 100 * extraKilos;
}
