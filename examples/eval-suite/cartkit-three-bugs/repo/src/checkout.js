import { subtotal, weight } from './cart.js';
import { discountFor } from './discount.js';
import { shippingFor } from './shipping.js';

/**
 * An order's summary. `discount` is the amount to take off (as discountFor returns it); tax is due
 * on the discounted goods, not on shipping.
 * @param {{ subtotal: number, discount: number, shipping: number, taxRate: number }} order
 */
export function summarize({ subtotal, discount, shipping, taxRate }) {
  const goods = subtotal - discount;
  const tax = Math.round(goods * taxRate);
  return { subtotal, discount, shipping, tax, total: goods + shipping + tax };
}

/**
 * @param {import('./cart.js').Cart} cart
 * @param {{ code?: string, taxRate: number }} options
 */
export function checkout(cart, { code, taxRate }) {
  const sub = subtotal(cart);
  return summarize({
    subtotal: sub,
    discount: discountFor(sub, code),
    shipping: shippingFor(sub, weight(cart)),
    taxRate,
  });
}
