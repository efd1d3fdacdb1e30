/**
 * A simulated provider prompt cache for the scripted model, so demos and benchmarks show what a real
 * provider's automatic prefix caching would report (OpenAI-style: prefixes of at least 1,024 tokens,
 * matched in 128-token steps). The request is read as a sequence of blocks — the system prompt in
 * ~128-token chunks, the tool list, then each message — and the cached part is the longest prefix of
 * blocks seen in an earlier request. Estimates only (chars / 4), like the scripted usage itself.
 */
import { createHash, type Hash } from 'node:crypto';
import type { ModelRequest } from '../types.js';

const CHUNK_CHARS = 512; // ≈ 128 tokens
const MIN_CACHED_TOKENS = 1024;
const MAX_ENTRIES = 500_000;

export interface PromptCache {
  /** Tokens of the request's longest previously seen prefix (0 below the provider's minimum); remembers this request. */
  cachedTokens(request: ModelRequest): number;
}

export function createPromptCache(): PromptCache {
  const seen = new Set<string>();
  return {
    cachedTokens(request) {
      const blocks = requestBlocks(request);
      const hash: Hash = createHash('sha1');
      let chars = 0;
      let cachedChars = 0;
      let matching = true;
      for (const block of blocks) {
        hash.update(block);
        hash.update('\u0000');
        chars += block.length;
        const digest = hash.copy().digest('base64');
        if (matching && seen.has(digest)) cachedChars = chars;
        else matching = false;
        if (seen.size >= MAX_ENTRIES) seen.clear();
        seen.add(digest);
      }
      const tokens = Math.floor(cachedChars / 4);
      return tokens >= MIN_CACHED_TOKENS ? tokens - (tokens % 128) : 0;
    },
  };
}

function requestBlocks(request: ModelRequest): string[] {
  const blocks: string[] = [];
  for (let i = 0; i < request.system.length; i += CHUNK_CHARS)
    blocks.push(request.system.slice(i, i + CHUNK_CHARS));
  blocks.push(JSON.stringify(request.tools));
  for (const m of request.messages)
    blocks.push(
      m.role === 'assistant' ? `${m.content}${JSON.stringify(m.toolCalls)}` : `${m.role}:${m.content}`,
    );
  return blocks;
}
