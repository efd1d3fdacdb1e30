/**
 * The scripted model of the orchestrated test in fleet.test.ts, served by the fake provider over HTTP.
 * Stateless (any worker can answer any subagent's next turn after a takeover): each answer follows
 * from the request alone. The lead creates `writers` coder subagents and one explorer, assigns each a
 * task in one turn, then gives the first writer a second task, then answers. A writer's task writes
 * work/<name>/<k>.txt (k: its task number), asks to merge it and answers; the explorer lists files.
 */
import type { ScriptedPolicy } from '../../src/model/index.js';

export function writerName(i: number): string {
  return `writer-${i + 1}`;
}

export function orchestratedTasksPolicy(writers = 2): ScriptedPolicy {
  return (request) => {
    const usage = { input: 100, cachedInput: 0, output: 10 };
    const calls = (list: { name: string; args: Record<string, unknown> }[]) => ({
      toolCalls: list.map((c) => ({ name: c.name, arguments: c.args })),
      usage,
    });
    const subagent = /You are subagent "([a-z0-9-]+)"/.exec(request.system)?.[1];
    if (!subagent) {
      const done = request.messages.filter((m) => m.role === 'tool').length;
      const names = [...Array.from({ length: writers }, (_, i) => writerName(i)), 'explorer'];
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
          { name: 'assign_task', args: { agent: writerName(0), prompt: 'write your second file' } },
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
