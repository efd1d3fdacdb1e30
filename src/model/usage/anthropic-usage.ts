import type { Usage } from '../types.js';
import { field, num } from './num.js';

/**
 * Anthropic Messages usage → neutral Usage. `input_tokens` EXCLUDES cache reads and writes:
 * `cache_read_input_tokens` → cachedInput, `cache_creation_input_tokens` → cacheWrite.
 * Anthropic does not break thinking tokens out of `output_tokens`, so reasoning is undefined.
 */
export function anthropicUsage(raw: unknown): Usage | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  return {
    input: num(field(raw, 'input_tokens')) ?? 0,
    cachedInput: num(field(raw, 'cache_read_input_tokens')),
    cacheWrite: num(field(raw, 'cache_creation_input_tokens')),
    output: num(field(raw, 'output_tokens')) ?? 0,
    reasoning: undefined,
  };
}
