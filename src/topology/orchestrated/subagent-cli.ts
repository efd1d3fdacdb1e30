/**
 * Orchestrated subagents driven by an external agent CLI (docs/agent-cli.md): `--agent-cli KIND`
 * drives every subagent's loop (the lead stays Colony's own), a config profile's `cli` drives its
 * subagents'. Such a subagent is the same subagent a built-in one is — its checkout, prompt, task
 * events and result to the lead — with the CLI in place of Colony's loop (peers' CliHost). A CLI
 * brings its own file and shell tools, which cannot be made read-only, so it always works in a
 * worktree of its own (a read-only profile's gets no merge tool: nothing it writes lands).
 */
import type { CliHost } from '../../external-agent/index.js';
import type { AgentCliChoice, RunSpec } from '../../run/run-spec.js';
import type { Sandbox } from '../../sandbox/index.js';
import type { Subagent } from './subagent-task.js';

export interface SubagentCli {
  /** The CLI driving this subagent's loop (null: Colony's own loop). */
  choiceFor(subagent: Subagent): AgentCliChoice | null;
  host: CliHost;
  sandbox: Sandbox | null;
  baseEnv: NodeJS.ProcessEnv;
}

/** A profile's own CLI, else the run's `--agent-cli` (its per-peer fields do not apply here). */
export function subagentCliChoice(spec: RunSpec, subagent: Subagent): AgentCliChoice | null {
  const own = subagent.profile.cli;
  const chosen = own ?? (spec.agentCli ? { kind: spec.agentCli.kind, command: spec.agentCli.command } : null);
  if (!chosen) return null;
  // The subagent's model is its profile's (or the run's): the proxy sends its calls there.
  return { kind: chosen.kind, ...(chosen.command ? { command: chosen.command } : {}) };
}

/** Whether any subagent of this run may be CLI-driven (the run-wide flag or a profile naming one). */
export function runHasSubagentClis(spec: RunSpec): boolean {
  return spec.agentCli !== undefined || Object.values(spec.profiles ?? {}).some((p) => p.cli !== undefined);
}
