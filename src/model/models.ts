import { isSimModelId, simModelRecord } from './providers/sim-spec.js';
import type { ModelRecord, Prices, Protocol } from './types.js';

/*
 * Known models. Prices are US dollars per million tokens, list prices as of 2026 (best knowledge,
 * not fetched); override them with a custom model of the same id in config. OpenAI and
 * DeepSeek/Moonshot do not bill cache writes separately, so their cacheWrite equals input.
 */
const OPENAI = 'https://api.openai.com/v1';
const ANTHROPIC = 'https://api.anthropic.com';
const MOONSHOT = 'https://api.moonshot.ai/v1';
const DEEPSEEK = 'https://api.deepseek.com';

function p(input: number, cachedInput: number, cacheWrite: number, output: number): Prices {
  return { input, cachedInput, cacheWrite, output };
}

export const KNOWN_MODELS: readonly ModelRecord[] = [
  {
    id: 'gpt-5',
    protocol: 'openai-responses',
    name: 'gpt-5',
    apiKeyEnv: 'OPENAI_API_KEY',
    contextWindow: 400_000,
    maxOutput: 128_000,
    prices: p(1.25, 0.125, 1.25, 10),
  },
  {
    id: 'gpt-5-mini',
    protocol: 'openai-responses',
    name: 'gpt-5-mini',
    apiKeyEnv: 'OPENAI_API_KEY',
    contextWindow: 400_000,
    maxOutput: 128_000,
    prices: p(0.25, 0.025, 0.25, 2),
  },
  {
    id: 'gpt-4.1',
    protocol: 'openai-chat',
    name: 'gpt-4.1',
    apiKeyEnv: 'OPENAI_API_KEY',
    contextWindow: 1_047_576,
    maxOutput: 32_768,
    prices: p(2, 0.5, 2, 8),
  },
  {
    id: 'claude-sonnet-4-5',
    protocol: 'anthropic',
    name: 'claude-sonnet-4-5',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    contextWindow: 200_000,
    maxOutput: 64_000,
    prices: p(3, 0.3, 3.75, 15),
  },
  {
    id: 'claude-opus-4-1',
    protocol: 'anthropic',
    name: 'claude-opus-4-1',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    contextWindow: 200_000,
    maxOutput: 32_000,
    prices: p(15, 1.5, 18.75, 75),
  },
  {
    id: 'claude-haiku-4-5',
    protocol: 'anthropic',
    name: 'claude-haiku-4-5',
    apiKeyEnv: 'ANTHROPIC_API_KEY',
    contextWindow: 200_000,
    maxOutput: 64_000,
    prices: p(1, 0.1, 1.25, 5),
  },
  {
    id: 'kimi-k2.5',
    protocol: 'openai-chat',
    name: 'kimi-k2.5',
    baseUrl: MOONSHOT,
    apiKeyEnv: 'MOONSHOT_API_KEY',
    contextWindow: 262_144,
    maxOutput: 32_768,
    prices: p(0.6, 0.1, 0.6, 3),
  },
  {
    id: 'kimi-k2-0905-preview',
    protocol: 'openai-chat',
    name: 'kimi-k2-0905-preview',
    baseUrl: MOONSHOT,
    apiKeyEnv: 'MOONSHOT_API_KEY',
    contextWindow: 262_144,
    maxOutput: 32_768,
    prices: p(0.6, 0.15, 0.6, 2.5),
  },
  {
    id: 'deepseek-chat',
    protocol: 'openai-chat',
    name: 'deepseek-chat',
    baseUrl: DEEPSEEK,
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    contextWindow: 128_000,
    maxOutput: 8_192,
    prices: p(0.28, 0.028, 0.28, 0.42),
  },
  {
    id: 'deepseek-reasoner',
    protocol: 'openai-chat',
    name: 'deepseek-reasoner',
    baseUrl: DEEPSEEK,
    apiKeyEnv: 'DEEPSEEK_API_KEY',
    contextWindow: 128_000,
    maxOutput: 64_000,
    prices: p(0.28, 0.028, 0.28, 0.42),
  },
  {
    id: 'scripted',
    protocol: 'scripted',
    name: 'scripted',
    contextWindow: 128_000,
    maxOutput: 8_192,
    prices: p(0, 0, 0, 0),
  },
];

/** Default base URLs per protocol when neither the record, a flag nor the environment sets one. */
export const DEFAULT_BASE_URLS: Record<Exclude<Protocol, 'scripted'>, string> = {
  'openai-chat': OPENAI,
  'openai-responses': OPENAI,
  anthropic: ANTHROPIC,
};

/** The environment variable a model's key comes from when its record names none. */
export const DEFAULT_KEY_ENVS: Record<Protocol, string | undefined> = {
  'openai-chat': 'OPENAI_API_KEY',
  'openai-responses': 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  scripted: undefined,
};

/**
 * Vendor keys and the hosts they belong to. Colony sends such a key over https to these hosts only,
 * unless the endpoint was chosen by `--base-url` or an environment variable (see foreignKeyHost).
 */
export const VENDOR_KEY_HOSTS: Readonly<Record<string, readonly string[]>> = {
  OPENAI_API_KEY: ['api.openai.com'],
  ANTHROPIC_API_KEY: ['api.anthropic.com'],
  MOONSHOT_API_KEY: ['api.moonshot.ai', 'api.moonshot.cn'],
  DEEPSEEK_API_KEY: ['api.deepseek.com'],
};

/** The environment variable holding a model's key (its record's, else its protocol's); none for scripted. */
export function keyEnvOf(model: ModelRecord): string | undefined {
  return model.apiKeyEnv ?? DEFAULT_KEY_ENVS[model.protocol];
}

/**
 * Would calling `model` at `url` send a vendor's key somewhere that vendor does not serve (another
 * host, or plain http)? The key's variable and its hosts, or null when the key may go there.
 */
export function foreignKeyHost(
  model: ModelRecord,
  url: string,
): { keyEnv: string; hosts: readonly string[] } | null {
  const keyEnv = keyEnvOf(model);
  const hosts = keyEnv === undefined ? undefined : VENDOR_KEY_HOSTS[keyEnv];
  if (keyEnv === undefined || hosts === undefined) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { keyEnv, hosts };
  }
  return parsed.protocol === 'https:' && hosts.includes(parsed.hostname) ? null : { keyEnv, hosts };
}

const WIRE_PROTOCOLS: readonly Protocol[] = ['openai-chat', 'openai-responses', 'anthropic'];
export const DEFAULT_CONTEXT_WINDOW = 128_000;
export const DEFAULT_MAX_OUTPUT = 8_192;

export function knownModelIds(): string[] {
  return KNOWN_MODELS.map((m) => m.id);
}

export type ResolveResult = { ok: true; model: ModelRecord } | { ok: false; error: string };

/**
 * Resolves `--model`: a custom id from config (custom wins, so prices can be overridden), a known id,
 * or `<protocol>:<model-name>` split at the FIRST colon (`openai-chat:llama3:8b` → name `llama3:8b`).
 * `baseUrl` overrides the record's base URL.
 */
export function resolveModel(
  id: string,
  opts: { baseUrl?: string; custom?: ModelRecord[] } = {},
): ResolveResult {
  const custom = opts.custom ?? [];
  const found = custom.find((m) => m.id === id) ?? KNOWN_MODELS.find((m) => m.id === id);
  if (found) return { ok: true, model: withBaseUrl(found, opts.baseUrl) };
  // The simulated agent of `colony eval` (providers/sim-spec.ts): its parameters are in the id.
  if (isSimModelId(id)) return simModelRecord(id);

  const colon = id.indexOf(':');
  if (colon > 0) {
    const protocol = id.slice(0, colon) as Protocol;
    const name = id.slice(colon + 1);
    if (!WIRE_PROTOCOLS.includes(protocol)) {
      return {
        ok: false,
        error: `unknown protocol '${protocol}' in model '${id}' (use ${WIRE_PROTOCOLS.join(', ')})`,
      };
    }
    if (name === '') return { ok: false, error: `model '${id}' has no model name after the protocol` };
    // Same wire name, same vendor family, default endpoint: reuse the known record's limits and prices.
    const twin = opts.baseUrl
      ? undefined
      : KNOWN_MODELS.find((m) => m.name === name && family(m.protocol) === family(protocol));
    const model: ModelRecord = twin
      ? { ...twin, id, protocol }
      : {
          id,
          protocol,
          name,
          contextWindow: DEFAULT_CONTEXT_WINDOW,
          maxOutput: DEFAULT_MAX_OUTPUT,
          prices: null,
        };
    return { ok: true, model: withBaseUrl(model, opts.baseUrl) };
  }

  const ids = [...custom.map((m) => m.id), ...knownModelIds()];
  return {
    ok: false,
    error: `unknown model '${id}'. Known models: ${ids.join(', ')}; or use <protocol>:<model-name> with protocol ${WIRE_PROTOCOLS.join(', ')}`,
  };
}

function withBaseUrl(model: ModelRecord, baseUrl: string | undefined): ModelRecord {
  return baseUrl ? { ...model, baseUrl } : model;
}

function family(protocol: Protocol): string {
  return protocol.startsWith('openai') ? 'openai' : protocol;
}
