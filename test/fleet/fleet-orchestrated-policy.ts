/**
 * The scripted model of an orchestrated fleet run, served by the fake provider over HTTP. Stateless
 * (every answer follows from the request), so a subagent task resumed on another worker gets the
 * same next turn. The lead creates `writers` coder subagents (writer-1 …) and assigns each one task
 * in one response; a writer writes out/<name>.txt, lands it with merge_request and answers; the lead
 * answers once every task came back.
 */
import type { ScriptedPolicy, ScriptedTurn } from '../../src/model/index.js';
import type { ModelRequest } from '../../src/model/types.js';

export function writerNames(writers: number): string[] {
  return Array.from({ length: writers }, (_, i) => `writer-${i + 1}`);
}

/** What writer `name` puts in its file. */
export function writerContent(name: string): string {
  return `written by ${name}\n`;
}

export function fleetOrchestratedPolicy(writers = 3): ScriptedPolicy {
  return (request) => {
    if (request.system.startsWith('You are the lead')) return leadTurn(request, writers);
    return writerTurn(request);
  };
}

/** True when the request is one of this policy's (the lead's or a writer's). */
export function isOrchestratedRequest(request: ModelRequest): boolean {
  return (
    request.system.startsWith('You are the lead') || /You are subagent "writer-\d+"/.test(request.system)
  );
}

const usage = { input: 100, cachedInput: 0, output: 10 };

function leadTurn(request: ModelRequest, writers: number): ScriptedTurn {
  if (request.messages.some((m) => m.role === 'assistant')) {
    const results = request.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    return { text: `The team is done:\n${results.join('\n')}`, usage };
  }
  const names = writerNames(writers);
  return {
    text: `Creating ${names.length} writers, one file each.`,
    toolCalls: [
      ...names.map((name) => ({
        name: 'create_subagent',
        arguments: { name, system_prompt: `You write the file out/${name}.txt.`, profile: 'coder' },
      })),
      ...names.map((name) => ({
        name: 'assign_task',
        arguments: {
          agent: name,
          prompt: `Task: write out/${name}.txt (one line: "written by ${name}"), land it with merge_request, then answer.`,
        },
      })),
    ],
    usage,
  };
}

function writerTurn(request: ModelRequest): ScriptedTurn {
  const name = /You are subagent "([^"]+)"/.exec(request.system)?.[1] ?? 'unknown';
  let taskAt = -1;
  request.messages.forEach((m, i) => {
    if (m.role === 'user' && m.content.includes('Task: write')) taskAt = i;
  });
  const calls = request.messages
    .slice(taskAt + 1)
    .flatMap((m) => (m.role === 'assistant' ? m.toolCalls.map((c) => c.name) : []));
  if (!calls.includes('write'))
    return {
      toolCalls: [{ name: 'write', arguments: { path: `out/${name}.txt`, content: writerContent(name) } }],
      usage,
    };
  if (!calls.includes('merge_request'))
    return { toolCalls: [{ name: 'merge_request', arguments: { note: `out/${name}.txt` } }], usage };
  const answer = [...request.messages].reverse().find((m) => m.role === 'tool')?.content ?? '';
  return { text: `${name} wrote out/${name}.txt; merge_request answered: ${answer.slice(0, 200)}`, usage };
}

/**
 * Holds the writers' model calls until all `writers` of them have called once, so their tasks run at
 * once (4 tasks on two workers of 2 slots each must then use both workers), or until `timeoutMs`
 * passed (then `timedOut()` says so, and the calls go on). Released once, it stays released: a
 * resumed call is never held.
 */
export function writersTogether(
  writers: number,
  timeoutMs: number,
): { gate(request: ModelRequest): Promise<void>; timedOut(): boolean } {
  const seen = new Set<string>();
  let open = false;
  let timedOut = false;
  let release = (): void => {};
  const released = new Promise<void>((resolve) => {
    release = () => {
      open = true;
      resolve();
    };
  });
  let timer: NodeJS.Timeout | undefined;
  return {
    async gate(request) {
      const writer = /You are subagent "(writer-\d+)"/.exec(request.system)?.[1];
      if (!writer || open) return;
      seen.add(writer);
      if (seen.size >= writers) {
        clearTimeout(timer);
        release();
        return;
      }
      timer ??= setTimeout(() => {
        timedOut = true;
        release();
      }, timeoutMs);
      await released;
    },
    timedOut: () => timedOut,
  };
}
