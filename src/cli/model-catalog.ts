/**
 * What a run's models are, in the terminal's words (the catalog itself: run/run-catalog.ts; the
 * same endpoints as data for run.started: runEndpoints there).
 */

import type { Endpoint, ModelCatalog } from '../model/catalog.js';
import type { RunSpec } from '../run/run-spec.js';

/**
 * What the run will call, for the start of `colony run`: `model gpt-5 at https://api.openai.com
 * (key OPENAI_API_KEY)`, then one line per profile or peer whose model differs. Only the URL's origin
 * is shown (never credentials or a path).
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
  for (const [peer, setting] of Object.entries(spec.peerSettings ?? {}))
    if (setting.model) add(setting.model, `${peer}: `);
  return lines;
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
