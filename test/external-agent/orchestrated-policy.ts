/**
 * The fake provider's script for an orchestrated run whose subagents are external agents: the lead
 * (Colony's own loop) creates a coder subagent `fixer` and gives it one task per module in turn,
 * then answers; `fixer` (whatever drives it: the mini agent, Claude Code) writes the module's fix
 * with its own write tool, lands it with merge_request over MCP and answers `fixed <module>`.
 */
import type { ScriptedPolicy, ScriptedTurn } from '../../src/model/index.js';

export const SUBAGENT = 'fixer';

export function taskPrompt(module: string): string {
  return `Fix module ${module}: write "fixed ${module}" to src/${module}/value.txt, then merge_request.`;
}

type Turn = ScriptedTurn;
const call = (name: string, args: unknown): Turn => ({ toolCalls: [{ name, arguments: args }] });

/** A call of the subagent's own tools, one per turn (`write`; Claude Code: Read, then Write). */
type OwnCall = { name: string; arguments: unknown };

/** `ownCalls`: the subagent's own tool calls that fix a file (paths relative to its checkout). */
export function orchestratedCliPolicy(
  modules: string[],
  ownCalls: (file: string, content: string) => OwnCall[] = (path, content) => [
    { name: 'write', arguments: { path, content } },
  ],
  mergeTool = 'merge_request',
  profile = 'coder',
): ScriptedPolicy {
  return (request) => {
    const calls = request.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
    if (request.system.startsWith('You are the lead')) {
      const assigned = calls.filter((c) => c.name === 'assign_task').length;
      if (calls.length === 0)
        return call('create_subagent', {
          name: SUBAGENT,
          system_prompt: 'You fix modules.',
          profile,
        });
      const next = modules[assigned];
      if (next) return call('assign_task', { agent: SUBAGENT, prompt: taskPrompt(next) });
      return { text: `all ${modules.length} modules fixed` };
    }
    if (!request.system.includes(`You are subagent "${SUBAGENT}"`) || request.tools.length === 0)
      return { text: 'ok' };
    // The task of this turn: the last user message naming a module (a resumed session has all).
    const asked = request.messages
      .filter((m) => m.role === 'user')
      .map((m) => /Fix module (\w+)/.exec(m.content)?.[1])
      .filter((m): m is string => m !== undefined)
      .at(-1);
    if (!asked) return { text: 'no task' };
    // This task's calls: those after the last user message naming it.
    const naming = request.messages.map(
      (m) => m.role === 'user' && m.content.includes(`Fix module ${asked}`),
    );
    const since = naming.lastIndexOf(true);
    const mine = request.messages.slice(since).flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
    const own = ownCalls(`src/${asked}/value.txt`, `fixed ${asked}\n`);
    const next = own[mine.length];
    if (next) return call(next.name, next.arguments);
    if (mine.length === own.length) return call(mergeTool, { note: `fix ${asked}` });
    return { text: `fixed ${asked}` };
  };
}
