/**
 * The soak's scripted model (bench/soak.ts): one fake model server answers both kinds of run, by the
 * request's system prompt. A copy of the fleet tests' policies (test/fleet/fleet-policy.ts and
 * orchestrated-tasks-policy.ts), so the bench does not depend on test/fleet. Stateless: any worker
 * can answer any agent's next turn after a takeover or a resume (each answer follows from the request).
 *
 * - A peer (`Your peer ID is peer-N`) claims work/<id>/, writes `files` files, asks to merge them,
 *   releases its claim and answers.
 * - The orchestrated lead creates `writers` coder subagents and one explorer, assigns each a task,
 *   then gives the first writer a second task, then answers; a writer's task writes
 *   work/<name>/<k>.txt, asks to merge it and answers; the explorer lists files.
 */
import type { ScriptedPolicy } from '../../src/model/index.js';

export const SOAK_FILES = 3;
export const SOAK_WRITERS = 3;

export function soakWriterName(i: number): string {
  return `writer-${i + 1}`;
}

const usage = { input: 100, cachedInput: 0, output: 10 };
const calls = (list: { name: string; args: Record<string, unknown> }[]) => ({
  toolCalls: list.map((c) => ({ name: c.name, arguments: c.args })),
  usage,
});

function peerTurn(id: string, done: number, files: number) {
  const scope = `work/${id}/`;
  if (done === 0) return calls([{ name: 'claim', args: { scope, summary: `the files of ${id}` } }]);
  if (done <= files)
    return calls([{ name: 'write', args: { path: `${scope}${done}.txt`, content: `${id} ${done}\n` } }]);
  if (done === files + 1) return calls([{ name: 'merge_request', args: { note: `files of ${id}` } }]);
  if (done === files + 2) return calls([{ name: 'release', args: { scope, outcome: 'done, submitted' } }]);
  return { text: `${id} done`, usage };
}

export function soakPolicy(files = SOAK_FILES, writers = SOAK_WRITERS): ScriptedPolicy {
  return (request) => {
    const peer = /Your peer ID is (peer-\d+)/.exec(request.system)?.[1];
    if (peer) return peerTurn(peer, request.messages.filter((m) => m.role === 'tool').length, files);
    const subagent = /You are subagent "([a-z0-9-]+)"/.exec(request.system)?.[1];
    if (!subagent) {
      // The lead.
      const done = request.messages.filter((m) => m.role === 'tool').length;
      const names = [...Array.from({ length: writers }, (_, i) => soakWriterName(i)), 'explorer'];
      if (done === 0)
        return calls(
          names.map((name) => ({
            name: 'create_subagent',
            args: {
              name,
              system_prompt: `You are ${name}.`,
              profile: name === 'explorer' ? 'explore' : 'coder',
            },
          })),
        );
      if (done === names.length)
        return calls(
          names.map((name) => ({
            name: 'assign_task',
            args: { agent: name, prompt: name === 'explorer' ? 'list the files' : 'write your first file' },
          })),
        );
      if (done === names.length * 2)
        return calls([
          { name: 'assign_task', args: { agent: soakWriterName(0), prompt: 'write your second file' } },
        ]);
      return { text: 'the team is done', usage };
    }
    const last = request.messages.at(-1);
    if (subagent === 'explorer')
      return last?.role === 'user' ? calls([{ name: 'ls', args: { path: '.' } }]) : { text: 'listed', usage };
    const task = request.messages.filter((m) => m.role === 'user').length;
    if (last?.role === 'user')
      return calls([
        { name: 'write', args: { path: `work/${subagent}/${task}.txt`, content: `${subagent} ${task}\n` } },
      ]);
    if (last?.role === 'tool' && last.content.startsWith('Created'))
      return calls([{ name: 'merge_request', args: { note: `file ${task} of ${subagent}` } }]);
    return { text: `${subagent} task ${task} merged`, usage };
  };
}
