import { monthlyPayment } from './interest.js';

/**
 * A loan's amortization schedule, one row a month. `ratePercent` is the yearly rate in percent, as
 * users type it (6 for 6 %). The last payment repays exactly what is left.
 * @param {number} principalCents
 * @param {number} ratePercent
 * @param {number} months
 * @returns {{ month: number, payment: number, interest: number, principal: number, balance: number }[]}
 */
export function amortize(principalCents, ratePercent, months) {
  const payment = monthlyPayment(principalCents, ratePercent, months);
  const monthlyRate = ratePercent / 100 / 12;
  const rows = [];
  let balance = principalCents;
  for (let month = 1; month <= months; month++) {
    const interest = Math.round(balance * monthlyRate);
    const principal = month === months ? balance : Math.min(balance, payment - interest);
    balance -= principal;
    rows.push({ month, payment: principal + interest, interest, principal, balance });
  }
  return rows;
}
