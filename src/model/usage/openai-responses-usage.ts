import type { Usage } from '../types.js';
import { field, num } from './num.js';

/**
 * OpenAI Responses usage → neutral Usage. `input_tokens` INCLUDES `input_tokens_details.cached_tokens`;
 * `output_tokens_details.reasoning_tokens` is a breakdown of `output_tokens`. No cache-write figure.
 */
export function openaiResponsesUsage(raw: unknown): Usage | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const input = num(field(raw, 'input_tokens')) ?? 0;
  const cached = num(field(field(raw, 'input_tokens_details'), 'cached_tokens'));
  return {
    input: Math.max(0, input - (cached ?? 0)),
    cachedInput: cached,
    cacheWrite: undefined,
    output: num(field(raw, 'output_tokens')) ?? 0,
    reasoning: num(field(field(raw, 'output_tokens_details'), 'reasoning_tokens')),
  };
}
