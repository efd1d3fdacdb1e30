/**
 * Everything needed to execute (or resume) a run, persisted with the run so that `colony resume`
 * rebuilds the same run in a new process.
 */
import type { AgentCliChoice, AgentCliKind } from '../agent/cli-choice.js';
import type { ProfileDefinition } from '../agent/profiles.js';
import type { ModelRecord } from '../model/types.js';
import type { SandboxSetting } from '../sandbox/setting.js';

/** The four ways to run a team (src/topology/). */
export const TOPOLOGY_NAMES = ['solo', 'peers', 'workflow', 'orchestrated'] as const;
export type TopologyName = (typeof TOPOLOGY_NAMES)[number];

export { AGENT_CLI_KINDS, type AgentCliChoice, type AgentCliKind } from '../agent/cli-choice.js';

/** peers: an external CLI drives these peers' loops instead of Colony's own loop. */
export interface AgentCliSpec {
  kind: AgentCliKind;
  /** cmd: the command (run with `sh -c` in the agent's checkout); claude-code, codex: the binary. */
  command?: string;
  /** The peers it drives (default: every peer); the others run Colony's own loop. */
  agents?: string[];
  /** Peers driven by another CLI (or model) than `kind` (`--agent-cli-peers peer-3=codex@MODEL`). */
  byAgent?: Record<string, AgentCliChoice>;
}

/** peers: what one peer gets of its own instead of the run's (`--peer-models`, `--peer-max-steps`). */
export interface PeerSetting {
  /** A model id as `model` takes it (default: the run's model). */
  model?: string;
  /** Its step cap (default: the run's `maxSteps`). */
  maxSteps?: number;
}

export interface RunSpec {
  runId: string;
  topology: TopologyName;
  /** peers: how many peers (`peer-1` … `peer-N`). */
  agents?: number;
  /** peers: most peers working at once (default 64). */
  concurrency?: number;
  /** Top level of the user's repository (absolute). */
  repo: string;
  goal: string;
  /** The base ref as given and the commit it resolved to. */
  baseRef: string;
  baseCommit: string;
  model: string;
  baseUrl?: string;
  customModels: ModelRecord[];
  /** Name of a bundled scripted scenario (used with the scripted model, e.g. by `colony demo`). */
  scenario?: string;
  setup?: string;
  /** The final check: run on hub main at the end; it decides the run's status. */
  verify?: string;
  /**
   * peers: what the integration queue runs for each merge request (default: `verify`). Lets a run
   * whose final verify fails on partial progress (e.g. the whole test suite) land pieces one by one.
   */
  mergeVerify?: string;
  /** workflow: the program (its file, transpiled JavaScript, kept so resume runs the same code) and `--arg`s. */
  workflow?: { file: string; js: string; args: Record<string, string> };
  /** When the run ends as `deadline_exceeded` (ISO; absolute, so a resumed run keeps it). */
  deadlineAt?: string;
  /** peers: how long a peer may go without an event before it is nudged (then declared stalled). */
  idleMs?: number;
  /** Claim lease, every topology (default 5 minutes); a stalled or dead agent's claims expire after it. */
  claimLeaseMs?: number;
  /**
   * false: no supervisor resumes this run on its own when its process dies (`--no-auto-resume`);
   * only `colony resume` does. Absent: supervisors may (supervise/).
   */
  autoResume?: boolean;
  /** peers: peer-1 … peer-K also review and land others' merge requests (default 0: the queue lands them). */
  integrators?: number;
  /**
   * peers, orchestrated, workflow: every verified merge request waits for a person's approval
   * (`colony approve` / `colony reject`, the dashboard) before it lands (default false).
   */
  approveMerges?: boolean;
  /**
   * One of N attempts at the same goal (`colony run --attempts N`, docs/attempts.md): the group's id
   * (its winner's branch is colony/<group>), this attempt's number (1-based) and N.
   */
  attempt?: RunAttempt;
  /**
   * peers: the agents run on fleet workers (`colony worker`, src/fleet/), not in this process; the
   * owner serves the hub and the integration queue to them at `listen` (HOST:PORT, default
   * 127.0.0.1:0), reached by workers at `advertiseUrl` (default: the listening address); over TLS
   * with `tls` (absolute paths of a PEM certificate and key), plain HTTP off loopback only with
   * `insecureHttp` (src/fleet/tls.ts).
   */
  fleet?: {
    listen?: string;
    advertiseUrl?: string;
    tls?: { cert: string; key: string };
    insecureHttp?: boolean;
  };
  /** peers: an external agent CLI drives the peers' loops (`--agent-cli`). */
  agentCli?: AgentCliSpec;
  maxSteps: number;
  /** peers: a model and/or step cap of its own per peer, by name (`peer-2`); others keep the run's. */
  peerSettings?: Record<string, PeerSetting>;
  /** orchestrated: the lead's step cap (default: maxSteps) and a subagent's per task (default 100). */
  leadMaxSteps?: number;
  subagentMaxSteps?: number;
  /**
   * orchestrated: how the lead delegates — `tasks` (create_subagent/assign_task), `programs`
   * (run_workflow only: `--topology planned`) or `both` (the default).
   */
  leadDelegation?: 'tasks' | 'programs' | 'both';
  /** Scheduler limits beyond `concurrency` (defaults: 1,000 starts per agent, 4,096 agents). */
  maxStartsPerAgent?: number;
  maxAgents?: number;
  /** orchestrated: open workflow runs (run_workflow, background or not) per lead at once (default 10). */
  maxOpenWorkflows?: number;
  /** orchestrated: profiles from config (base profile, own model, step cap, role prompt). */
  profiles?: Record<string, ProfileDefinition>;
  /** orchestrated: the acceptance check run after the team finishes (failures go back to their owners). */
  accept?: string;
  /** orchestrated: acceptance rounds at most (default 2). */
  acceptRounds?: number;
  budgetUsd?: number;
  budgetTokens?: number;
  profile: string;
  stream: boolean;
  modelTimeoutMs: number;
  maxRetries: number;
  bashTimeoutS: number;
  /**
   * How agents' commands, setup and checks are contained (docs/sandbox.md): resolved from `--sandbox`,
   * `--allow-network` and `--pass-env` when the run is created, so a resumed run keeps it. Absent (a
   * spec written before the sandbox, or built by hand): not contained, and summaries say so.
   */
  sandbox?: SandboxSetting;
}

export const SOLO_AGENT = 'solo';

export function resultBranchName(runId: string): string {
  return `colony/${runId}`;
}

export function agentBranchName(agent: string): string {
  return `agent/${agent}`;
}

/** A run's place in an attempt group (`colony run --attempts N`). */
export interface RunAttempt {
  group: string;
  index: number;
  of: number;
}
