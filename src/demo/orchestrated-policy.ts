/**
 * The scripted orchestrated scenario (used by `colony demo orchestrated`, the tests and the bench).
 * The goal carries the plan: `plan: a:4,b:7,c:2 / a:5,b:5` — waves separated by `/`, each task
 * `agent:steps`. The lead creates the subagents (explore profile), assigns one wave per turn (all
 * its tasks in that one response) and answers when the waves are done; a task whose result is not
 * `done` (failed or stopped; a refused start is not retried) is re-assigned with 2 steps. A subagent spends `steps - 1` model responses on `ls`
 * and answers on the last one, so a task of n steps is exactly n model responses.
 */
import type { ScriptedPolicy, ScriptedTurn } from '../model/providers/scripted.js';
import type { ModelRequest } from '../model/types.js';

export interface PlannedTask {
  agent: string;
  steps: number;
}

export function parsePlan(goal: string): PlannedTask[][] {
  const text = /plan:\s*([^\n]+)/.exec(goal)?.[1] ?? '';
  return text
    .split('/')
    .map((wave) =>
      wave
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '')
        .map((item) => {
          const [agent = '', steps = '1'] = item.split(':');
          return { agent: agent.trim(), steps: Math.max(1, Number.parseInt(steps, 10) || 1) };
        }),
    )
    .filter((wave) => wave.length > 0);
}

export function taskPrompt(task: PlannedTask, label: string): string {
  return `Task ${label}: inspect the repository; take steps=${task.steps}.`;
}

export function orchestratedPolicy(options: { profile?: string } = {}): ScriptedPolicy {
  return (request) => {
    if (request.system.startsWith('You are the lead')) return leadTurn(request, options.profile ?? 'explore');
    return subagentTurn(request);
  };
}

function leadTurn(request: ModelRequest, profile: string): ScriptedTurn {
  const goal = request.messages[0]?.content ?? '';
  const plan = parsePlan(goal);
  const turns = request.messages.filter((m) => m.role === 'assistant').length;
  // Re-assign each failed task of the previous turn once, with a small step count.
  const failed = request.messages
    .slice(lastAssistantIndex(request) + 1)
    .filter((m) => m.role === 'tool' && /^\[task-\d+ → [^:]+: (failed|stopped)/.test(m.content))
    .map((m) => /→ ([^:]+):/.exec(m.content)?.[1] ?? '')
    .filter((agent) => agent !== '');
  if (failed.length > 0) {
    return {
      text: 'Re-assigning failed work.',
      toolCalls: failed.map((agent) => ({
        name: 'assign_task',
        arguments: { agent, prompt: `${taskPrompt({ agent, steps: 2 }, `retry-${agent}-${turns}`)} (retry)` },
      })),
    };
  }
  const waveIndex = turns - retryTurns(request);
  const wave = plan[waveIndex];
  if (!wave) return { text: `All ${plan.length} wave(s) done.` };
  const created = new Set(
    request.messages.flatMap((m) =>
      m.role === 'assistant'
        ? (m.toolCalls ?? [])
            .filter((c) => c.name === 'create_subagent')
            .map((c) => JSON.parse(c.arguments).name)
        : [],
    ),
  );
  const creates = [...new Set(wave.map((t) => t.agent))]
    .filter((agent) => !created.has(agent))
    .map((agent) => ({
      name: 'create_subagent',
      arguments: { name: agent, system_prompt: `You inspect part ${agent} of the repository.`, profile },
    }));
  return {
    text: `Wave ${waveIndex + 1} of ${plan.length}.`,
    toolCalls: [
      ...creates,
      ...wave.map((task, i) => ({
        name: 'assign_task',
        arguments: { agent: task.agent, prompt: taskPrompt(task, `w${waveIndex + 1}-${i + 1}`) },
      })),
    ],
  };
}

function lastAssistantIndex(request: ModelRequest): number {
  for (let i = request.messages.length - 1; i >= 0; i--)
    if (request.messages[i]?.role === 'assistant') return i;
  return -1;
}

function retryTurns(request: ModelRequest): number {
  return request.messages.filter((m) => m.role === 'assistant' && m.content === 'Re-assigning failed work.')
    .length;
}

function subagentTurn(request: ModelRequest): ScriptedTurn {
  const name = /You are subagent "([^"]+)"/.exec(request.system)?.[1] ?? 'subagent';
  let lastUser = -1;
  request.messages.forEach((m, i) => {
    if (m.role === 'user' && /^Task /.test(m.content)) lastUser = i;
  });
  const prompt = request.messages[lastUser]?.content ?? '';
  const steps = Number.parseInt(/steps=(\d+)/.exec(prompt)?.[1] ?? '1', 10);
  const done = request.messages.slice(lastUser + 1).filter((m) => m.role === 'assistant').length;
  if (done + 1 < steps) return { toolCalls: [{ name: 'ls', arguments: { path: '.' } }] };
  const label = /^Task ([^:]+):/.exec(prompt)?.[1] ?? '?';
  return { text: `${name} finished ${label} in ${steps} step(s): nothing wrong found.` };
}
