/** The model layer: model records, providers per wire protocol, usage and cost. */
import { DEFAULT_BASE_URLS, DEFAULT_KEY_ENVS } from './models.js';
import { createAnthropicProvider } from './providers/anthropic.js';
import { createOpenAIChatProvider } from './providers/openai-chat.js';
import { createOpenAIResponsesProvider } from './providers/openai-responses.js';
import { createScriptedProvider, type ScriptedPolicy, type ScriptedTurn } from './providers/scripted.js';
import type { ProviderOptions } from './providers/shared.js';
import type { ModelRecord, Protocol, Provider } from './types.js';

export { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './http.js';
export {
  DEFAULT_BASE_URLS,
  KNOWN_MODELS,
  knownModelIds,
  type ResolveResult,
  resolveModel,
} from './models.js';
export { addUsage, costOf } from './pricing.js';
export { createAnthropicProvider } from './providers/anthropic.js';
export { createOpenAIChatProvider } from './providers/openai-chat.js';
export { createOpenAIResponsesProvider } from './providers/openai-responses.js';
export {
  createScriptedProvider,
  estimateRequestTokens,
  type ScriptedPolicy,
  type ScriptedProvider,
  type ScriptedTurn,
  scriptedTurnToModelTurn,
} from './providers/scripted.js';
export type { ProviderOptions } from './providers/shared.js';
export { createSimProvider, simPlanOf, simProviderFor } from './providers/sim.js';
export { SIM_WRONG_MARK, type SimPlan, simAgentPolicy } from './providers/sim-agent.js';
export { parseSimPatch, type SimFilePatch } from './providers/sim-patch.js';
export {
  isSimModelId,
  parseSimModelId,
  type SimSpec,
  simDraw,
  simModelId,
  simModelRecord,
} from './providers/sim-spec.js';
export type * from './types.js';

export interface CreateProviderOptions extends ProviderOptions {
  /** Turns or policy for a `scripted` model; an empty script when absent. */
  scripted?: ScriptedTurn[] | ScriptedPolicy;
}

export function createProvider(model: ModelRecord, options: CreateProviderOptions = {}): Provider {
  const { scripted, ...wire } = options;
  switch (model.protocol) {
    case 'openai-chat':
      return createOpenAIChatProvider(model, wire);
    case 'openai-responses':
      return createOpenAIResponsesProvider(model, wire);
    case 'anthropic':
      return createAnthropicProvider(model, wire);
    case 'scripted':
      // Bundled scenarios report the cached input a provider's prefix cache would give.
      return createScriptedProvider(scripted ?? [], { model, promptCache: typeof scripted === 'function' });
  }
}

type Env = Record<string, string | undefined>;

const BASE_URL_ENV: Record<Protocol, string | undefined> = {
  'openai-chat': 'OPENAI_BASE_URL',
  'openai-responses': 'OPENAI_BASE_URL',
  anthropic: 'ANTHROPIC_BASE_URL',
  scripted: undefined,
};
const OFFICIAL_HOSTS = new Set([
  'api.openai.com',
  'api.anthropic.com',
  'api.moonshot.ai',
  'api.moonshot.cn',
  'api.deepseek.com',
]);

/**
 * Base URL for a model: the record's (from `--base-url` or config), else the protocol's environment
 * variable (OPENAI_BASE_URL / ANTHROPIC_BASE_URL), else the vendor default. undefined for scripted.
 */
export function baseUrlFor(model: ModelRecord, env: Env): string | undefined {
  if (model.protocol === 'scripted') return undefined;
  const envName = BASE_URL_ENV[model.protocol];
  const fromEnv = envName ? env[envName] : undefined;
  return model.baseUrl ?? (fromEnv || undefined) ?? DEFAULT_BASE_URLS[model.protocol];
}

/**
 * The API key for a model from the environment: the record's `apiKeyEnv`, else the protocol's
 * convention. A missing key is an error naming the variable, except for a custom (non-vendor) base
 * URL, where local OpenAI-compatible servers such as Ollama need none.
 */
export function apiKeyFor(
  model: ModelRecord,
  env: Env,
): { ok: true; key: string | undefined } | { ok: false; error: string } {
  const name = model.apiKeyEnv ?? DEFAULT_KEY_ENVS[model.protocol];
  if (name === undefined) return { ok: true, key: undefined };
  const key = env[name];
  if (key) return { ok: true, key };
  const base = baseUrlFor(model, env);
  if (base !== undefined && !OFFICIAL_HOSTS.has(hostOf(base))) return { ok: true, key: undefined };
  return { ok: false, error: `model '${model.id}' needs an API key: set ${name}` };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}
