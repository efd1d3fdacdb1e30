/**
 * The models a run may call, built once per run and handed down: model id → record (known, custom,
 * or `<protocol>:<name>`), its base URL and key from the environment, and its provider, cached.
 * The run's `--base-url` belongs to the run's own model only: a profile that names another model
 * keeps that model's endpoint (an Anthropic profile in a run pointed at Ollama still calls Anthropic).
 */
import { apiKeyFor, baseUrlFor, createProvider } from './index.js';
import { keyEnvOf, resolveModel } from './models.js';
import type { ScriptedPolicy } from './providers/scripted.js';
import { simProviderFor } from './providers/sim.js';
import { isSimModelId } from './providers/sim-spec.js';
import type { ModelRecord, Provider } from './types.js';

export type ProviderResult = { ok: true; provider: Provider } | { ok: false; error: string };

/** Where calls to a model go: its base URL (undefined for scripted) and the key variable sent, if any. */
export interface Endpoint {
  model: string;
  url: string | undefined;
  /** The variable whose value is sent as the key; undefined when no key is sent. */
  keyEnv: string | undefined;
}

/**
 * Where a model's raw requests go and the key they carry, for a forwarding proxy (src/proxy/): the
 * key is for the upstream request only, never for an agent or the log.
 */
export interface Upstream {
  model: ModelRecord;
  baseUrl: string;
  /** undefined: no key is sent (a local server that needs none). */
  apiKey: string | undefined;
}

export interface ModelCatalogOptions {
  /** The run's model id (used when no id is given). */
  runModel: string;
  /** The run's `--base-url`: applies to `runModel` only. */
  baseUrl?: string;
  custom?: ModelRecord[];
  env: Record<string, string | undefined>;
  timeoutMs?: number;
  maxRetries?: number;
  /** The policy behind the `scripted` model (a bundled scenario), or why there is none. */
  scripted?: ScriptedPolicy | { error: string };
}

const NO_SCRIPT =
  "the 'scripted' model only runs bundled scenarios (colony demo); pass --model with a real model";

export class ModelCatalog {
  private readonly providers = new Map<string, ProviderResult>();

  constructor(private readonly options: ModelCatalogOptions) {}

  get runModel(): string {
    return this.options.runModel;
  }

  /** The record of a model id (the run's model when omitted), with its base URL as the run sets it. */
  record(
    id: string = this.options.runModel,
  ): { ok: true; model: ModelRecord } | { ok: false; error: string } {
    const { baseUrl, custom } = this.options;
    return resolveModel(id, { custom, baseUrl: id === this.options.runModel ? baseUrl : undefined });
  }

  /** Where calls to a model id (the run's model when omitted) go, and which key they carry. */
  endpoint(
    id: string = this.options.runModel,
  ): { ok: true; endpoint: Endpoint } | { ok: false; error: string } {
    const resolved = this.record(id);
    if (!resolved.ok) return resolved;
    const model = resolved.model;
    const { env } = this.options;
    const url = baseUrlFor(model, env);
    const key = model.protocol === 'scripted' ? { ok: false as const } : apiKeyFor(model, env);
    const keyEnv = key.ok && key.key !== undefined ? keyEnvOf(model) : undefined;
    return { ok: true, endpoint: { model: id, url, keyEnv } };
  }

  /** The upstream of a model id (the run's model when omitted): record, base URL and key. */
  upstream(
    id: string = this.options.runModel,
  ): { ok: true; upstream: Upstream } | { ok: false; error: string } {
    const resolved = this.record(id);
    if (!resolved.ok) return resolved;
    const model = resolved.model;
    const baseUrl = baseUrlFor(model, this.options.env);
    if (baseUrl === undefined)
      return { ok: false, error: `model '${id}' is scripted: it has no upstream to forward to` };
    const key = apiKeyFor(model, this.options.env);
    if (!key.ok) return key;
    return { ok: true, upstream: { model, baseUrl, apiKey: key.key } };
  }

  /** The provider of a model id (the run's model when omitted), built once. */
  provider(id: string = this.options.runModel): ProviderResult {
    const cached = this.providers.get(id);
    if (cached) return cached;
    const built = this.build(id);
    this.providers.set(id, built);
    return built;
  }

  private build(id: string): ProviderResult {
    const resolved = this.record(id);
    if (!resolved.ok) return resolved;
    const model = resolved.model;
    const { env, scripted } = this.options;
    if (model.protocol === 'scripted' && isSimModelId(model.id)) return simProviderFor(model);
    if (model.protocol === 'scripted') {
      if (!scripted) return { ok: false, error: NO_SCRIPT };
      if (typeof scripted !== 'function') return { ok: false, error: scripted.error };
      return { ok: true, provider: createProvider(model, { scripted }) };
    }
    const key = apiKeyFor(model, env);
    if (!key.ok) return key;
    return {
      ok: true,
      provider: createProvider(model, {
        apiKey: key.key,
        baseUrl: baseUrlFor(model, env),
        timeoutMs: this.options.timeoutMs,
        maxRetries: this.options.maxRetries,
      }),
    };
  }
}
