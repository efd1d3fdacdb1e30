/**
 * `colony run --agent-cli claude-code|codex|'cmd:…' [--agent-cli-peers peer-2,peer-3]`: which
 * external CLI drives the peers' loops (src/agent-cli/, docs/agent-cli.md), validated here (usage
 * errors, exit 2).
 */
import { parseAgentCliFlag } from '../agent-cli/index.js';
import type { AgentCliSpec } from '../run/run-spec.js';
import { UsageError } from './args.js';

export function agentCliFlags(
  values: { 'agent-cli'?: string; 'agent-cli-peers'?: string; workers?: boolean },
  topology: string,
  agents: number | undefined,
  env: NodeJS.ProcessEnv,
): AgentCliSpec | undefined {
  const value = values['agent-cli'];
  const peers = values['agent-cli-peers'];
  if (value === undefined) {
    if (peers !== undefined) throw new UsageError('run: --agent-cli-peers needs --agent-cli');
    return undefined;
  }
  if (topology !== 'peers')
    throw new UsageError('run: --agent-cli needs --topology peers (orchestrated subagents: not yet)');
  if (values.workers) throw new UsageError('run: --agent-cli does not run on fleet workers (--workers) yet');
  const parsed = parseAgentCliFlag(value, env);
  if (!parsed.ok) throw new UsageError(`run: ${parsed.error}`);
  if (peers === undefined) return parsed.value;
  const names = peers
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const known = Array.from({ length: agents ?? 0 }, (_, i) => `peer-${i + 1}`);
  const unknown = names.find((name) => !known.includes(name));
  if (names.length === 0 || unknown !== undefined)
    throw new UsageError(
      `run: --agent-cli-peers takes peer names from peer-1 to peer-${agents ?? 0}, comma-separated${unknown ? ` (not "${unknown}")` : ''}`,
    );
  return { ...parsed.value, agents: names };
}
