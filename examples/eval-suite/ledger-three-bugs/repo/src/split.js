/**
 * `cents` split into `parts` amounts that differ by at most one cent and add up to `cents` exactly;
 * the larger amounts come first.
 * @param {number} cents
 * @param {number} parts
 * @returns {number[]}
 */
export function splitEvenly(cents, parts) {
  if (!Number.isInteger(parts) || parts < 1) throw new RangeError('parts must be a positive integer');
  const base = Math.trunc(cents / parts);
  const rest = cents - base * parts;
  return Array.from({ length: parts }, (_, i) => base + (i < rest ? 1 : 0));
}
