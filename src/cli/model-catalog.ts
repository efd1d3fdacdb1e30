/** The model catalog of a run started or resumed from the CLI: the spec's models plus its bundled scenario. */

import type { RunEndpoint } from '../core/events.js';
import { scenarioPolicy } from '../demo/scenarios.js';
import type { Endpoint, ModelCatalog } from '../model/catalog.js';
import type { RunSpec } from '../run/run-spec.js';
import { catalogFromSpec } from '../topology/execute-run.js';

export function runCatalog(spec: RunSpec, env: NodeJS.ProcessEnv): ModelCatalog {
  const scripted = spec.scenario
    ? (scenarioPolicy(spec.scenario) ?? { error: `unknown scripted scenario '${spec.scenario}'` })
    : undefined;
  return catalogFromSpec(spec, env, scripted);
}

/**
 * What the run will call, for the start of `colony run`: `model gpt-5 at https://api.openai.com
 * (key OPENAI_API_KEY)`, then one line per profile whose model differs. Only the URL's origin is shown
 * (never credentials or a path).
 */
export function endpointLines(spec: RunSpec, catalog: ModelCatalog): string[] {
  const lines: string[] = [];
  const shown = new Set<string>();
  const add = (id: string, label: string) => {
    if (shown.has(id)) return;
    shown.add(id);
    const found = catalog.endpoint(id);
    if (found.ok) lines.push(`${label}${describeEndpoint(found.endpoint)}`);
  };
  add(spec.model, '');
  for (const [name, profile] of Object.entries(spec.profiles ?? {}))
    if (profile.model) add(profile.model, `profile "${name}": `);
  return lines;
}

/** The same endpoints as data, for run.started (`colony run --json`): full base URL, no credentials. */
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

export function describeEndpoint(endpoint: Endpoint): string {
  if (endpoint.url === undefined) return `model ${endpoint.model} (scripted: no network)`;
  const key = endpoint.keyEnv ? `key ${endpoint.keyEnv}` : 'no key';
  return `model ${endpoint.model} at ${originOf(endpoint.url)} (${key})`;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * A money budget cannot stop a model without prices (its calls cost nothing to the budget): refused
 * unless a token budget binds too. Covers the run's model and every profile's own model. Returns the
 * unpriced model's description, or null (the library's runTopology asks the same).
 */
export function unpricedUnderMoneyBudget(spec: RunSpec, catalog: ModelCatalog): string | null {
  if (spec.budgetUsd === undefined || spec.budgetTokens !== undefined) return null;
  const uses: Array<[string, string]> = [[spec.model, `model '${spec.model}'`]];
  for (const [name, profile] of Object.entries(spec.profiles ?? {}))
    if (profile.model) uses.push([profile.model, `profile "${name}"'s model '${profile.model}'`]);
  for (const [id, what] of uses) {
    const record = catalog.record(id);
    if (record.ok && record.model.prices === null) return what;
  }
  return null;
}
