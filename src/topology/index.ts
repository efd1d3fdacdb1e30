/** The four topologies by name: executeRun looks the run's up here. */
import type { TopologyName } from '../run/run-spec.js';
import type { Topology } from './context.js';
import { orchestratedTopology } from './orchestrated.js';
import { peersTopology } from './peers.js';
import { soloTopology } from './solo.js';
import { workflowTopology } from './workflow.js';

export type { ProviderFor, RunContext, RunOutcome, Topology } from './context.js';

export const TOPOLOGIES: Readonly<Record<TopologyName, Topology>> = {
  solo: soloTopology,
  orchestrated: orchestratedTopology,
  workflow: workflowTopology,
  peers: peersTopology,
};
