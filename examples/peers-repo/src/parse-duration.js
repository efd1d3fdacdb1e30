/** Parses durations like "90s", "15m", "1h30m" into seconds. */
export function parseDuration(text) {
  const units = { h: 3600, m: 1, s: 1 };
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+)([hms])/g)) {
    total += Number(amount) * units[unit];
  }
  return total;
}
