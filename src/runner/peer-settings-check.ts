/**
 * The check of a peers run's per-peer settings (`spec.peerSettings`), made with the rest of the spec
 * before anything is recorded: only with topology peers, only for the run's peers (`peer-1` …
 * `peer-N`), each own model one the run can call (known, with its key), and never two models for
 * one peer (its external CLI's `@MODEL` and another one here).
 */
import type { ModelCatalog } from '../model/catalog.js';
import type { RunSpec } from '../run/run-spec.js';
import { cliOf } from '../topology/peers/peer-host.js';
import { peerNames } from '../topology/peers.js';
import type { SpecProblem } from './spec-problem.js';

export function peerSettingsProblem(spec: RunSpec, catalog: ModelCatalog): SpecProblem | null {
  const settings = Object.entries(spec.peerSettings ?? {});
  if (settings.length === 0) return null;
  if (spec.topology !== 'peers') return { kind: 'peer-settings-topology' };
  const agents = spec.agents ?? 1;
  const names = new Set(peerNames(agents));
  for (const [peer, setting] of settings) {
    if (!names.has(peer)) return { kind: 'unknown-peer', peer, agents };
    if (setting.model === undefined) continue;
    const built = catalog.provider(setting.model);
    if (!built.ok) return { kind: 'peer-model', peer, detail: built.error };
    const cliModel = cliOf(spec, peer)?.model;
    if (cliModel !== undefined && cliModel !== setting.model)
      return { kind: 'peer-two-models', peer, models: [cliModel, setting.model] };
  }
  return null;
}
