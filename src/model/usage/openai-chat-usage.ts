import type { Usage } from '../types.js';
import { field, num } from './num.js';

/**
 * OpenAI Chat Completions usage → neutral Usage. `prompt_tokens` INCLUDES cached tokens
 * (`prompt_tokens_details.cached_tokens`), so uncached input = prompt − cached.
 * `completion_tokens_details.reasoning_tokens` is a breakdown of `completion_tokens`.
 * Compatible servers: DeepSeek reports `prompt_cache_hit_tokens`, Moonshot a top-level `cached_tokens`.
 * Chat Completions never reports cache writes. Returns undefined when there is no usage object.
 */
export function openaiChatUsage(raw: unknown): Usage | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  const prompt = num(field(raw, 'prompt_tokens')) ?? 0;
  const cached =
    num(field(field(raw, 'prompt_tokens_details'), 'cached_tokens')) ??
    num(field(raw, 'prompt_cache_hit_tokens')) ??
    num(field(raw, 'cached_tokens'));
  return {
    input: Math.max(0, prompt - (cached ?? 0)),
    cachedInput: cached,
    cacheWrite: undefined,
    output: num(field(raw, 'completion_tokens')) ?? 0,
    reasoning: num(field(field(raw, 'completion_tokens_details'), 'reasoning_tokens')),
  };
}
