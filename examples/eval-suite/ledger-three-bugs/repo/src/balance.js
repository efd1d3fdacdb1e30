/**
 * @typedef {{ date: string, cents: number, memo?: string }} Transaction  date is YYYY-MM-DD
 */

/**
 * The balance of an account: the sum of its transactions, or of those up to and including the day
 * `asOf` (YYYY-MM-DD) when given.
 * @param {Transaction[]} transactions
 * @param {string} [asOf]
 * @returns {number}
 */
export function balance(transactions, asOf) {
  let sum = 0;
  for (const t of transactions) {
    if (asOf === undefined || t.date < asOf) sum += t.cents;
  }
  return sum;
}
