/**
 * The fake provider's script for Codex as a peer: its peer turns (the peer prompt is one of its
 * developer messages) claim a scope over MCP (`mcp__colony__claim`: Codex's `mcp__colony` namespace,
 * flattened by the fake provider), change it with Codex's own shell tool (`exec_command`),
 * merge_request and release over MCP, then answer. Every answer reports the usage `codexUsage(step)`
 * (cached input included), so a test can check the metering exactly. Any other request gets text.
 */
import type { ScriptedPolicy } from '../../src/model/index.js';
import type { Usage } from '../../src/model/types.js';

export interface ShellFix {
  scope: string;
  /** The shell command that makes the change (run in the checkout). */
  command: string;
  note: string;
}

/** The usage the fake provider reports for a peer's n-th call (0-based). */
export function codexUsage(step: number): Pick<Usage, 'input' | 'cachedInput' | 'output'> {
  return { input: 700 + step * 11, cachedInput: 3000 + step * 100, output: 40 + step };
}

export function codexPolicy(fixOf: (peer: number) => ShellFix | undefined): ScriptedPolicy {
  return (request) => {
    const id = /Your peer ID is peer-(\d+)\./.exec(request.system)?.[1];
    const fix = fixOf(Number(id));
    if (!fix || !request.tools.some((t) => t.name === 'exec_command')) return { text: 'ok' };
    const calls = request.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
    const usage = codexUsage(calls.length);
    const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: args }], usage });
    const last = calls.at(-1)?.name;
    if (!last) return call('mcp__colony__claim', { scope: fix.scope, summary: fix.note });
    if (last === 'mcp__colony__claim') return call('exec_command', { cmd: fix.command });
    if (last === 'exec_command') return call('mcp__colony__merge_request', { note: fix.note });
    if (last === 'mcp__colony__merge_request')
      return call('mcp__colony__release', { scope: fix.scope, outcome: `done: ${fix.note}` });
    return { text: `${fix.note}: merged and released`, usage };
  };
}
