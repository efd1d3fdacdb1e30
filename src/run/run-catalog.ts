/**
 * The model catalog of a run, built in one place from its spec and environment: the spec's models
 * (known, custom, `<protocol>:<name>`) plus its bundled scripted scenario. A run started, resumed or
 * hosted on a fleet worker calls its models through this catalog; it builds each provider once (a
 * scenario's policy keeps its state for the whole run), and `gatedProviders` puts them behind the
 * run's rate gate.
 */
import type { RunEndpoint } from '../core/events.js';
import { scenarioPolicy } from '../demo/scenarios.js';
import { ModelCatalog, type ProviderResult } from '../model/catalog.js';
import type { Provider } from '../model/types.js';
import type { RateGate } from './rate-gate.js';
import type { RunSpec } from './run-spec.js';

export function runCatalog(spec: RunSpec, env: NodeJS.ProcessEnv): ModelCatalog {
  const scripted = spec.scenario
    ? (scenarioPolicy(spec.scenario) ?? { error: `unknown scripted scenario '${spec.scenario}'` })
    : undefined;
  return new ModelCatalog({
    runModel: spec.model,
    baseUrl: spec.baseUrl,
    custom: spec.customModels,
    env,
    timeoutMs: spec.modelTimeoutMs,
    maxRetries: spec.maxRetries,
    scripted,
  });
}

/**
 * A model id (`undefined`: the run's own) → its provider behind the run's rate gate. `own` is the
 * run's gated provider as the caller holds it (it may not come from the catalog: tests pass their
 * own); every other model's provider comes from the catalog, which builds it once, and is wrapped
 * once (callers need no cache of their own).
 */
export function gatedProviders(
  catalog: ModelCatalog,
  gate: RateGate,
  own: Provider,
): (model: string | undefined) => ProviderResult {
  const gated = new Map<string, Provider>([[own.model.id, own]]);
  return (model) => {
    const id = model ?? own.model.id;
    const known = gated.get(id);
    if (known) return { ok: true, provider: known };
    const built = catalog.provider(id);
    if (!built.ok) return built;
    const provider = gate.wrap(built.provider);
    gated.set(id, provider);
    return { ok: true, provider };
  };
}

/** Where the run's models are called, as data for run.started (`colony run --json`): no credentials. */
export function runEndpoints(spec: RunSpec, catalog: ModelCatalog): RunEndpoint[] {
  const out: RunEndpoint[] = [];
  const add = (id: string, profile: string | null) => {
    if (out.some((e) => e.model === id)) return;
    const found = catalog.endpoint(id);
    if (!found.ok) return;
    const { url, keyEnv } = found.endpoint;
    out.push({
      model: id,
      profile,
      baseUrl: url === undefined ? null : withoutCredentials(url),
      keyEnv: keyEnv ?? null,
    });
  };
  add(spec.model, null);
  for (const [name, profile] of Object.entries(spec.profiles ?? {}))
    if (profile.model) add(profile.model, name);
  for (const [peer, setting] of Object.entries(spec.peerSettings ?? {}))
    if (setting.model) add(setting.model, peer);
  return out;
}

/** A URL without user, password, query or fragment (the event log never holds a credential). */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname === '/' ? '' : u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}
