export { balance } from './balance.js';
export { monthlyPayment } from './interest.js';
export { formatMoney, parseMoney } from './money.js';
export { amortize } from './schedule.js';
export { splitEvenly } from './split.js';
