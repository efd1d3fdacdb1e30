/**
 * @typedef {{ sku: string, qty: number, unitCents: number, grams: number }} Line
 * @typedef {{ lines: Line[] }} Cart
 */

/**
 * A new cart with `line` added (merged into the line of the same sku).
 * @param {Cart} cart
 * @param {Line} line
 * @returns {Cart}
 */
export function addLine(cart, line) {
  if (!Number.isInteger(line.qty) || line.qty < 1) throw new RangeError('qty must be a positive integer');
  const existing = cart.lines.find((l) => l.sku === line.sku);
  if (!existing) return { lines: [...cart.lines, { ...line }] };
  return { lines: cart.lines.map((l) => (l === existing ? { ...l, qty: l.qty + line.qty } : l)) };
}

/** @param {Cart} cart */
export function subtotal(cart) {
  return cart.lines.reduce((sum, l) => sum + l.qty * l.unitCents, 0);
}

/** @param {Cart} cart */
export function weight(cart) {
  return cart.lines.reduce((sum, l) => sum + l.qty * l.grams, 0);
}
