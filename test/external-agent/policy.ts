/**
 * The fake provider's policy for the agent-cli tests: the same for built-in peers and mini agents
 * (both get the peer prompt ending "Your peer ID is peer-N."): claim module N's folder, write its
 * fix, merge_request, release, then answer. Module of peer-N: MODULES[N-1].
 */
import type { ScriptedPolicy } from '../../src/model/index.js';

export const MODULES = ['alpha', 'beta', 'gamma'];

export const modulePolicy: ScriptedPolicy = (request) => {
  const id = /Your peer ID is peer-(\d+)\.\s*$/.exec(request.system)?.[1];
  const module = MODULES[Number(id) - 1];
  if (!module) return { text: 'no peer ID in the system prompt' };
  const calls = request.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
  const last = calls.at(-1)?.name;
  const scope = `src/${module}/`;
  if (!last) return { toolCalls: [{ name: 'claim', arguments: { scope, summary: `fix ${module}` } }] };
  if (last === 'claim')
    return {
      toolCalls: [
        { name: 'write', arguments: { path: `src/${module}/value.txt`, content: `fixed ${module}\n` } },
      ],
    };
  if (last === 'write')
    return { toolCalls: [{ name: 'merge_request', arguments: { note: `fix ${module}` } }] };
  if (last === 'merge_request')
    return { toolCalls: [{ name: 'release', arguments: { scope, outcome: `fixed ${module}` } }] };
  return { text: `${module} fixed and released` };
};
