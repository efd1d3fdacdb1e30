/**
 * What drives an agent's loop: Colony's own (agent/loop.ts) or an external CLI (agent-cli/). It is
 * the one difference between a built-in agent and a Claude Code, Codex or `cmd:` agent — where the
 * agent runs (the run's process or a fleet worker) is the other, decided by who calls. Every agent
 * start of every topology (solo, peer, lead, subagent task, workflow step) reaches its model here.
 */
import { type AgentDeps, type AgentOutcome, type AgentSpec, runAgent } from '../../agent/loop.js';
import type { CliHost, DrivePeer } from '../../external-agent/index.js';

export type AgentDriver =
  /** Colony's loop: its model calls, tools, budget and replay from the log. */
  | { kind: 'loop'; spec: AgentSpec; deps: AgentDeps }
  /** An external CLI, served Colony's tools over MCP and its model through the metering proxy. */
  | { kind: 'cli'; host: CliHost; request: DrivePeer };

export function driveAgent(driver: AgentDriver): Promise<AgentOutcome> {
  return driver.kind === 'cli' ? driver.host.drive(driver.request) : runAgent(driver.spec, driver.deps);
}
