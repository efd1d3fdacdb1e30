/** Parses durations like `90s`, `15m`, `6h`, `7d`, `1h30m` into milliseconds; null when invalid. */
export function parseDurationMs(text: string): number | null {
  const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  const trimmed = text.trim();
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(trimmed)) return null;
  let total = 0;
  for (const [, amount, unit] of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d)/g)) {
    total += Number(amount) * (units[unit ?? ''] ?? 0);
  }
  return total;
}
