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
/** Agents whose prefix hashing is kept (one per distinct system prompt). */
const MAX_PREFIXES = 10_000;

export interface PromptCache {
  /** Tokens of the request's longest previously seen prefix (0 below the provider's minimum); remembers this request. */
  cachedTokens(request: ModelRequest): number;
}

/** The hashing of a request's system prompt and tools, done once per agent (they do not change). */
interface Prefix {
  tools: readonly unknown[];
  /** Hash state after the prefix's blocks. */
  hash: Hash;
  /** Each prefix block's digest and the characters up to its end. */
  blocks: { digest: string; chars: number }[];
  chars: number;
}

export function createPromptCache(): PromptCache {
  const seen = new Set<string>();
  const prefixes = new Map<string, Prefix>();
  return {
    cachedTokens(request) {
      let cachedChars = 0;
      let matching = true;
      const visit = (digest: string, chars: number): void => {
        if (matching && seen.has(digest)) cachedChars = chars;
        else matching = false;
        if (seen.size >= MAX_ENTRIES) seen.clear();
        seen.add(digest);
      };
      const prefix = prefixOf(prefixes, request);
      for (const block of prefix.blocks) visit(block.digest, block.chars);
      const hash = prefix.hash.copy();
      let chars = prefix.chars;
      for (const block of messageBlocks(request)) {
        chars += hashBlock(hash, block);
        visit(hash.copy().digest('base64'), chars);
      }
      const tokens = Math.floor(cachedChars / 4);
      return tokens >= MIN_CACHED_TOKENS ? tokens - (tokens % 128) : 0;
    },
  };
}

function prefixOf(prefixes: Map<string, Prefix>, request: ModelRequest): Prefix {
  const known = prefixes.get(request.system);
  if (known && known.tools === request.tools) return known;
  const hash = createHash('sha1');
  const blocks: Prefix['blocks'] = [];
  let chars = 0;
  for (const block of prefixBlocks(request)) {
    chars += hashBlock(hash, block);
    blocks.push({ digest: hash.copy().digest('base64'), chars });
  }
  if (prefixes.size >= MAX_PREFIXES) prefixes.clear();
  const prefix = { tools: request.tools, hash, blocks, chars };
  prefixes.set(request.system, prefix);
  return prefix;
}

function hashBlock(hash: Hash, block: string): number {
  hash.update(block);
  hash.update('\u0000');
  return block.length;
}

/** The system prompt in ~128-token chunks, then the tool list. */
function prefixBlocks(request: ModelRequest): string[] {
  const blocks: string[] = [];
  for (let i = 0; i < request.system.length; i += CHUNK_CHARS)
    blocks.push(request.system.slice(i, i + CHUNK_CHARS));
  blocks.push(JSON.stringify(request.tools));
  return blocks;
}

function messageBlocks(request: ModelRequest): string[] {
  return request.messages.map((m) =>
    m.role === 'assistant' ? `${m.content}${JSON.stringify(m.toolCalls)}` : `${m.role}:${m.content}`,
  );
}
