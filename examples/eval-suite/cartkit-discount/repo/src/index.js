export { addLine, subtotal, weight } from './cart.js';
export { checkout, summarize } from './checkout.js';
export { discountFor } from './discount.js';
export { shippingFor } from './shipping.js';
export { reserve } from './stock.js';
