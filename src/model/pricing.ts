import type { Prices, Usage } from './types.js';

/**
 * Cost of one call in US dollars from prices per million tokens. `input` is uncached input only;
 * `reasoning` is already inside `output` and is never added. null when the model is unpriced.
 */
export function costOf(usage: Usage, prices: Prices | null): number | null {
  if (prices === null) return null;
  const micro =
    usage.input * prices.input +
    (usage.cachedInput ?? 0) * prices.cachedInput +
    (usage.cacheWrite ?? 0) * prices.cacheWrite +
    usage.output * prices.output;
  return micro / 1_000_000;
}

/** Adds two usages; a field stays undefined only when neither side reported it. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    cachedInput: addMaybe(a.cachedInput, b.cachedInput),
    cacheWrite: addMaybe(a.cacheWrite, b.cacheWrite),
    output: a.output + b.output,
    reasoning: addMaybe(a.reasoning, b.reasoning),
  };
}

function addMaybe(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a + b;
}
