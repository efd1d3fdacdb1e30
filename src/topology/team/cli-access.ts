/**
 * What peers driven by an external CLI get, wherever their host runs (the run's process, or a fleet
 * worker): a token secret kept in the host's memory (the CLI's tokens are checked by this host's own
 * MCP server and model proxy; a restarted host issues new ones), the host's rate gate, each peer's
 * model, and config folders under the host's run folder. Orchestrated subagents driven by a CLI get
 * the same (their model: their profile's).
 */
import { join } from 'node:path';
import { createRunSecret } from '../../auth/index.js';
import type { AgentCliAccess } from '../../external-agent/index.js';
import type { Upstream } from '../../model/catalog.js';
import type { RateGate } from '../../run/rate-gate.js';
import type { RunSpec } from '../../run/run-spec.js';
import { cliOf } from '../peers/peer-host.js';
import { peerModel } from '../peers/peer-settings.js';

export function agentCliAccess(options: {
  spec: RunSpec;
  gate: RateGate;
  upstream: (model: string) => Upstream | undefined;
  runFolder: string;
  /** The model id of an agent's calls (default: its peer CLI's own, else the peer's own, else the run's). */
  modelOf?: (agent: string) => string;
}): AgentCliAccess {
  const secret = createRunSecret();
  const { spec, gate, upstream } = options;
  const modelOf =
    options.modelOf ?? ((agent: string) => cliOf(spec, agent)?.model ?? peerModel(spec, agent) ?? spec.model);
  return {
    secret: () => secret,
    gate,
    // A peer's CLI may have a model of its own (a CLI speaks one protocol: a mixed team needs two).
    upstream: (agent) => upstream(modelOf(agent)),
    allowNetwork: spec.sandbox?.network === true,
    homesDir: join(options.runFolder, 'agent-cli'),
  };
}
