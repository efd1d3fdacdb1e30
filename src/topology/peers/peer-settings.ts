/**
 * What one peer gets of its own (`spec.peerSettings`: `--peer-models`, `--peer-max-steps`, config
 * "peers"): a model and a step cap, else the run's. A peer driven by an external CLI may name its
 * model with the CLI instead (`--agent-cli-peers peer-2=codex@MODEL`, `cliOf`); the spec builder
 * refuses a peer given two different models.
 */
import type { RunSpec } from '../../run/run-spec.js';

/** The peer's own model id, or undefined when it runs on the run's model. */
export function peerModel(spec: RunSpec, agent: string): string | undefined {
  return spec.peerSettings?.[agent]?.model;
}

/** The peer's step cap: its own, else the run's. */
export function peerMaxSteps(spec: RunSpec, agent: string): number {
  return spec.peerSettings?.[agent]?.maxSteps ?? spec.maxSteps;
}
