/**
 * What a topology is given and what it gives back. `executeRun` builds one RunContext per run (the
 * run's log, its rate-gated provider, sandbox, coordination services, end control) and asks the
 * run's Topology for its three durable phases; every topology (solo included) is handed the same
 * context, so a new topology needs no change to execute-run.ts.
 */
import type { Coordination } from '../coord/index.js';
import type { FinalRunStatus } from '../core/events.js';
import type { Scrubber } from '../core/secrets.js';
import type { FleetOwner } from '../fleet/owner.js';
import type { Upstream } from '../model/catalog.js';
import type { Message, Provider } from '../model/types.js';
import type { RunPhases } from '../run/durable.js';
import type { RateGate } from '../run/rate-gate.js';
import type { EndCause } from '../run/run-control.js';
import type { RunSpec, TopologyName } from '../run/run-spec.js';
import type { Sandbox } from '../sandbox/index.js';
import type { EventLog } from '../store/types.js';
import type { RunHistory } from '../workflow/stage-history.js';

/**
 * A model id (`undefined`: the run's own model) → its provider, the same one for the whole run, or why
 * the run cannot use it.
 */
export type ProviderFor = (
  model: string | undefined,
) => { ok: true; provider: Provider } | { ok: false; error: string };

export interface RunContext {
  spec: RunSpec;
  home: string;
  /** The run's event log (scrubbed at the store boundary). */
  log: EventLog;
  /** The run's model, behind the run's rate gate. */
  provider: Provider;
  /** The provider of another model (profiles may name their own), behind the same rate gate. */
  providerForModel: ProviderFor;
  scrubber: Scrubber;
  /** Aborted when the run ends early (stop, deadline, goal met). */
  signal: AbortSignal;
  /** Why the run was ended early, if it was. */
  endCause(): EndCause | null;
  /**
   * Earlier runs of the store (newest first) and their logs: a workflow program weighs its DAG nodes
   * by what an earlier run of the same program measured (src/workflow/stage-history.ts). Absent: 1.
   */
  history?: RunHistory;
  /** Ends the run early with this cause (peers: the goal is met); agents see the abort signal. */
  endRun(cause: EndCause): void;
  /** Environment for agents' commands, setup and checks (an allow-list; no secrets). */
  commandEnv: NodeJS.ProcessEnv;
  /**
   * Where agents' commands, setup and checks run (src/sandbox/; setup gets the network): null when
   * the run is not contained (`--sandbox off`).
   */
  sandbox: Sandbox | null;
  /** This process's messages, claims and shared context (peers coordinate through them). */
  coord: Coordination;
  /**
   * The direct-message injector of one agent of this run (the loop's `beforeModelCall`): every agent
   * of every topology gets it, so `colony send --to AGENT` reaches any of them.
   */
  injectorFor(agent: string): () => Promise<Message[]>;
  setRunStatus(status: FinalRunStatus): Promise<void>;
  /** The run's rate gate (the model proxy of external agent CLIs holds its slots too). */
  gate?: RateGate;
  /** A model's endpoint and real key (the run's model when omitted): what the model proxy forwards to. */
  upstream?: (model?: string) => Upstream | undefined;
  /** Fleet runs (`spec.fleet`): hands agent sessions to workers; absent, agents run in this process. */
  fleet?: FleetOwner;
}

/** How a run ended, as its finalize phase decided. */
export interface RunOutcome {
  status: FinalRunStatus;
  reason: string;
}

export interface Topology {
  name: TopologyName;
  /** The run's prepare/work/finalize phases; each is idempotent (re-run after a crash). */
  phases(ctx: RunContext): RunPhases<RunOutcome>;
}
