/**
 * The fake provider's script for Claude Code as a peer: its peer turns (the peer prompt appended to
 * its system prompt) claim module N over MCP, Read and Write the module's file with its own tools,
 * merge_request and release over MCP, then answer; any other request it makes (titles, background
 * checks) gets plain text.
 */
import type { ScriptedPolicy } from '../../src/model/index.js';
import { MODULES } from './policy.js';

export const claudePolicy: ScriptedPolicy = (request) => {
  const id = /Your peer ID is peer-(\d+)\./.exec(request.system)?.[1];
  const module = MODULES[Number(id) - 1];
  if (!module || request.tools.length === 0) return { text: 'ok' };
  const cwd = /Working directory: (\S+)/.exec(request.system)?.[1] ?? '.';
  const file = `${cwd}/src/${module}/value.txt`;
  const calls = request.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
  const last = calls.at(-1)?.name;
  const scope = `src/${module}/`;
  if (!last)
    return { toolCalls: [{ name: 'mcp__colony__claim', arguments: { scope, summary: `fix ${module}` } }] };
  if (last === 'mcp__colony__claim') return { toolCalls: [{ name: 'Read', arguments: { file_path: file } }] };
  if (last === 'Read')
    return { toolCalls: [{ name: 'Write', arguments: { file_path: file, content: `fixed ${module}\n` } }] };
  if (last === 'Write')
    return { toolCalls: [{ name: 'mcp__colony__merge_request', arguments: { note: `fix ${module}` } }] };
  if (last === 'mcp__colony__merge_request')
    return {
      toolCalls: [{ name: 'mcp__colony__release', arguments: { scope, outcome: `fixed ${module}` } }],
    };
  return { text: `${module} fixed and released` };
};
