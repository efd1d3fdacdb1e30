/**
 * The fixed monthly payment, in cents (rounded to the cent), that repays `principalCents` over
 * `months` at `annualRate`, a fraction (0.06 for 6 % a year), compounded monthly.
 * @param {number} principalCents
 * @param {number} annualRate
 * @param {number} months
 * @returns {number}
 */
export function monthlyPayment(principalCents, annualRate, months) {
  const r = annualRate / 100 / 12;
  if (r === 0) return Math.round(principalCents / months);
  return Math.round((principalCents * r) / (1 - (1 + r) ** -months));
}
