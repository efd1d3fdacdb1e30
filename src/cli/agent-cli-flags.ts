/**
 * `colony run --agent-cli claude-code|codex|'cmd:…' [--agent-cli-peers peer-2,peer-3=codex@MODEL]`:
 * which external CLI drives the peers' loops (src/external-agent/, docs/agent-cli.md), validated here
 * (usage errors, exit 2). An entry `peer-N` takes --agent-cli's CLI; `peer-N=KIND` its own (a mixed
 * team: `--agent-cli-peers peer-2=claude-code@anthropic:…,peer-3=codex@openai-responses:…`), with
 * `@MODEL` for claude-code and codex (each speaks one protocol). --agent-cli may be left out when
 * every entry names its CLI. With `--topology orchestrated`, --agent-cli drives the lead's subagents
 * (the lead stays Colony's loop); a config profile's `cli` overrides it for that profile's subagents.
 */
import { parseAgentCliFlag } from '../external-agent/index.js';
import type { AgentCliChoice, AgentCliSpec } from '../run/run-spec.js';
import { UsageError } from './args.js';

export function agentCliFlags(
  values: { 'agent-cli'?: string; 'agent-cli-peers'?: string },
  topology: string,
  agents: number | undefined,
  env: NodeJS.ProcessEnv,
): AgentCliSpec | undefined {
  const value = values['agent-cli'];
  const peers = values['agent-cli-peers'];
  if (value === undefined && peers === undefined) return undefined;
  if (topology !== 'peers' && topology !== 'orchestrated')
    throw new UsageError('run: --agent-cli needs --topology peers or orchestrated');
  if (topology === 'orchestrated' && peers !== undefined)
    throw new UsageError(
      'run: --agent-cli-peers needs --topology peers (orchestrated: a config profile names its CLI)',
    );
  const parsed = value === undefined ? undefined : parseAgentCliFlag(value, env);
  if (parsed && !parsed.ok) throw new UsageError(`run: ${parsed.error}`);
  const base = parsed?.value;
  if (peers === undefined) return base;
  const entries = peerEntries(peers, agents ?? 0, env);
  const byAgent: Record<string, AgentCliChoice> = {};
  for (const { name, choice } of entries) {
    if (choice) byAgent[name] = choice;
    else if (!base)
      throw new UsageError(
        `run: --agent-cli-peers ${name} takes --agent-cli's CLI: give --agent-cli, or ${name}=claude-code|codex|cmd:…`,
      );
  }
  // Without --agent-cli every entry names its CLI: the first stands in for the run-wide one.
  const first = entries[0]?.choice;
  const main = base ?? { kind: first?.kind ?? 'cmd', ...(first?.command ? { command: first.command } : {}) };
  return {
    ...main,
    agents: entries.map((e) => e.name),
    ...(Object.keys(byAgent).length > 0 ? { byAgent } : {}),
  };
}

/** `peer-2,peer-3=codex@MODEL,…` → the names and each one's own CLI (if given). */
function peerEntries(
  value: string,
  agents: number,
  env: NodeJS.ProcessEnv,
): { name: string; choice?: AgentCliChoice }[] {
  const known = Array.from({ length: agents }, (_, i) => `peer-${i + 1}`);
  const usage = (detail: string) =>
    new UsageError(
      `run: --agent-cli-peers takes peer names from peer-1 to peer-${agents}, comma-separated, each optionally =claude-code|codex[@MODEL] or =cmd:COMMAND (${detail})`,
    );
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw usage('none given');
  const seen = new Set<string>();
  return entries.map((entry) => {
    const at = entry.indexOf('=');
    const name = (at < 0 ? entry : entry.slice(0, at)).trim();
    if (!known.includes(name)) throw usage(`not "${name}"`);
    if (seen.has(name)) throw usage(`"${name}" twice`);
    seen.add(name);
    if (at < 0) return { name };
    return { name, choice: peerChoice(name, entry.slice(at + 1).trim(), env) };
  });
}

/** `claude-code`, `codex@openai-responses:gpt-5`, `cmd:node agent.mjs`. */
function peerChoice(name: string, value: string, env: NodeJS.ProcessEnv): AgentCliChoice {
  // A command may hold an @ of its own: only claude-code and codex take @MODEL.
  const at = value.startsWith('cmd:') ? -1 : value.indexOf('@');
  const kind = at < 0 ? value : value.slice(0, at);
  const model = at < 0 ? undefined : value.slice(at + 1).trim();
  if (model === '') throw new UsageError(`run: --agent-cli-peers ${name}=${kind}@ needs a model id after @`);
  const parsed = parseAgentCliFlag(kind, env);
  if (!parsed.ok) throw new UsageError(`run: --agent-cli-peers ${name}: ${parsed.error}`);
  return { ...parsed.value, ...(model ? { model } : {}) };
}
