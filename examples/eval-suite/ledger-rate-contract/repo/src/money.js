/**
 * An amount typed by a person ("12.34", "-3", "1.5") in cents. Null when it is not an amount.
 * @param {string} text
 * @returns {number | null}
 */
export function parseMoney(text) {
  const match = /^\s*(-)?(\d+)(?:\.(\d{1,2}))?\s*$/.exec(text);
  if (!match) return null;
  const [, minus, whole, fraction = ''] = match;
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return minus ? -cents : cents;
}

/**
 * Cents as an amount with two decimals: 1234 -> "12.34", -5 -> "-0.05".
 * @param {number} cents
 * @returns {string}
 */
export function formatMoney(cents) {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
