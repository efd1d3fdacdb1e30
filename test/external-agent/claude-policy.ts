/**
 * The fake provider's script for Claude Code as a peer: its peer turns (the peer prompt appended to
 * its system prompt) claim a scope over MCP, Read and Write a file with its own tools, merge_request
 * and release over MCP, then answer; any other request it makes (titles, background checks) gets
 * plain text. `claudePolicy`: peer-N fixes module MODULES[N-1] (src/<module>/value.txt).
 */
import type { ScriptedPolicy } from '../../src/model/index.js';
import { MODULES } from './policy.js';

export interface FileFix {
  scope: string;
  /** Relative to the checkout. */
  file: string;
  content: string;
  note: string;
  outcome: string;
}

export function claudeFixPolicy(fixOf: (peer: number) => FileFix | undefined): ScriptedPolicy {
  return (request) => {
    const id = /Your peer ID is peer-(\d+)\./.exec(request.system)?.[1];
    const fix = fixOf(Number(id));
    if (!fix || request.tools.length === 0) return { text: 'ok' };
    const cwd = /Working directory: (\S+)/.exec(request.system)?.[1] ?? '.';
    const file = `${cwd}/${fix.file}`;
    const calls = request.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
    const last = calls.at(-1)?.name;
    const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: args }] });
    if (!last) return call('mcp__colony__claim', { scope: fix.scope, summary: fix.note });
    if (last === 'mcp__colony__claim') return call('Read', { file_path: file });
    if (last === 'Read') return call('Write', { file_path: file, content: fix.content });
    if (last === 'Write') return call('mcp__colony__merge_request', { note: fix.note });
    if (last === 'mcp__colony__merge_request')
      return call('mcp__colony__release', { scope: fix.scope, outcome: fix.outcome });
    return { text: `${fix.note}: done and released` };
  };
}

export const claudePolicy: ScriptedPolicy = claudeFixPolicy((peer) => {
  const module = MODULES[peer - 1];
  if (!module) return undefined;
  return {
    scope: `src/${module}/`,
    file: `src/${module}/value.txt`,
    content: `fixed ${module}\n`,
    note: `fix ${module}`,
    outcome: `fixed ${module}`,
  };
});
