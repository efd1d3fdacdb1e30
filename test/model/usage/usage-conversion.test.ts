import { describe, expect, it } from 'vitest';
import { anthropicUsage } from '../../../src/model/usage/anthropic-usage.js';
import { openaiChatUsage } from '../../../src/model/usage/openai-chat-usage.js';
import { openaiResponsesUsage } from '../../../src/model/usage/openai-responses-usage.js';

describe('openaiChatUsage', () => {
  it('subtracts cached tokens from prompt_tokens and keeps reasoning inside output', () => {
    const u = openaiChatUsage({
      prompt_tokens: 1000,
      completion_tokens: 300,
      total_tokens: 1300,
      prompt_tokens_details: { cached_tokens: 600 },
      completion_tokens_details: { reasoning_tokens: 200 },
    });
    expect(u).toEqual({ input: 400, cachedInput: 600, cacheWrite: undefined, output: 300, reasoning: 200 });
  });
  it('leaves fields the provider did not report undefined', () => {
    expect(openaiChatUsage({ prompt_tokens: 10, completion_tokens: 2 })).toEqual({
      input: 10,
      cachedInput: undefined,
      cacheWrite: undefined,
      output: 2,
      reasoning: undefined,
    });
    expect(openaiChatUsage(undefined)).toBeUndefined();
    expect(openaiChatUsage(null)).toBeUndefined();
  });
  it('reads DeepSeek and Moonshot cache-hit fields', () => {
    expect(
      openaiChatUsage({ prompt_tokens: 100, prompt_cache_hit_tokens: 64, completion_tokens: 1 })?.cachedInput,
    ).toBe(64);
    expect(openaiChatUsage({ prompt_tokens: 100, cached_tokens: 32, completion_tokens: 1 })).toMatchObject({
      input: 68,
      cachedInput: 32,
    });
  });
  it('ignores garbage numbers', () => {
    expect(openaiChatUsage({ prompt_tokens: 'x', completion_tokens: -1 })).toMatchObject({
      input: 0,
      output: 0,
    });
  });
});

describe('openaiResponsesUsage', () => {
  it('subtracts cached input and keeps reasoning as a breakdown', () => {
    expect(
      openaiResponsesUsage({
        input_tokens: 500,
        input_tokens_details: { cached_tokens: 128 },
        output_tokens: 90,
        output_tokens_details: { reasoning_tokens: 64 },
      }),
    ).toEqual({ input: 372, cachedInput: 128, cacheWrite: undefined, output: 90, reasoning: 64 });
  });
  it('is undefined without a usage object', () => {
    expect(openaiResponsesUsage(undefined)).toBeUndefined();
  });
});

describe('anthropicUsage', () => {
  it('keeps input_tokens as uncached input and maps cache reads and writes', () => {
    expect(
      anthropicUsage({
        input_tokens: 50,
        cache_read_input_tokens: 4000,
        cache_creation_input_tokens: 300,
        output_tokens: 120,
      }),
    ).toEqual({ input: 50, cachedInput: 4000, cacheWrite: 300, output: 120, reasoning: undefined });
  });
  it('leaves absent cache fields undefined', () => {
    expect(anthropicUsage({ input_tokens: 5, output_tokens: 1 })).toEqual({
      input: 5,
      cachedInput: undefined,
      cacheWrite: undefined,
      output: 1,
      reasoning: undefined,
    });
  });
});
