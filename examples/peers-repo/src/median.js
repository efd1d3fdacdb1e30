/** The median of a non-empty list of numbers (the mean of the two middle ones for an even count). */
export function median(xs) {
  const sorted = [...xs];
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}
