/** Number formats of the eval report's text and tables. */

/** A share as a percentage: 0.523 → "52.3%". */
export function pct(share: number | null): string {
  return share === null ? '—' : `${(share * 100).toFixed(1)}%`;
}

/** A difference of shares in percentage points, signed: 0.1 → "+10.0 pp". */
export function pp(diff: number | null): string {
  if (diff === null) return '—';
  const v = diff * 100;
  return `${v > 0 ? '+' : v < 0 ? '−' : '±'}${Math.abs(v).toFixed(1)} pp`;
}

/** An interval of differences: "−3.1 to +12.5 pp". */
export function ppRange(ci: { lo: number; hi: number } | null): string {
  return ci === null ? '—' : `${pp(ci.lo).replace(' pp', '')} to ${pp(ci.hi)}`;
}

export function pValue(p: number): string {
  return p < 0.001 ? '< 0.001' : `= ${p.toFixed(3)}`;
}

export function times(ratio: number | null): string {
  return ratio === null ? '—' : `${ratio.toFixed(ratio < 10 ? 2 : 1)}×`;
}
