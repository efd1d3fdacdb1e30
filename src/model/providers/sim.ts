/**
 * The `sim:` provider: a SIMULATED model (no model is called) that acts out an eval task with a known
 * chance of success (sim-agent.ts), for checking `colony eval run` and its statistics end to end.
 * It is the scripted provider with the sim agent as its policy; every turn it returns names the
 * model `sim (simulated)` and every text starts with `[simulated]`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CallOptions, ModelRecord, ModelRequest, ModelResult, Provider } from '../types.js';
import { createScriptedProvider, type ScriptedPolicy } from './scripted.js';
import { type SimPlan, simAgentPolicy } from './sim-agent.js';
import { parseSimPatch } from './sim-patch.js';
import { parseSimModelId, type SimSpec, simDraw } from './sim-spec.js';

/** The provider around a sim policy (exposed so the conformance suite can drive it with its own). */
export function createSimProvider(
  policy: ScriptedPolicy,
  options: { model: ModelRecord; latencyMs?: number },
): Provider {
  const inner = createScriptedProvider(policy, {
    model: options.model,
    promptCache: true,
    ...(options.latencyMs ? { latencyMs: options.latencyMs } : {}),
  });
  return {
    model: options.model,
    async call(request: ModelRequest, call?: CallOptions): Promise<ModelResult> {
      const result = await inner.call(request, call);
      if (!result.ok) return result;
      const turn = result.turn;
      const labelled = turn.model.includes('simulated') ? turn.model : `${turn.model} (simulated)`;
      return { ok: true, turn: { ...turn, model: labelled, responseId: `sim-${turn.responseId ?? ''}` } };
    },
  };
}

type Read<T> = { ok: true; value: T } | { ok: false; error: string };

function readText(file: string): Read<string> {
  try {
    return { ok: true, value: readFileSync(file, 'utf8') };
  } catch (e) {
    return { ok: false, error: `sim model: cannot read ${file}: ${(e as Error).message}` };
  }
}

/** The task's true chance: `p`, or its entry in the truth file (else the file's default). */
function chanceOf(spec: SimSpec, taskId: string): Read<number> {
  if (spec.p !== null) return { ok: true, value: spec.p };
  const text = readText(spec.truth ?? '');
  if (!text.ok) return text;
  let json: { default?: unknown; tasks?: Record<string, unknown> };
  try {
    json = JSON.parse(text.value) as typeof json;
  } catch (e) {
    return { ok: false, error: `sim model: ${spec.truth} is not JSON: ${(e as Error).message}` };
  }
  const p = json.tasks?.[taskId] ?? json.default;
  if (typeof p !== 'number' || !(p >= 0 && p <= 1))
    return {
      ok: false,
      error: `sim model: ${spec.truth} gives no chance from 0 to 1 for task "${taskId}" (tasks.${taskId} or default)`,
    };
  return { ok: true, value: p };
}

/** This trial's plan: the fix from the task folder and the seeded draw. */
export function simPlanOf(spec: SimSpec): Read<SimPlan> {
  if (spec.task === null) {
    const p = spec.p ?? 0;
    const draw = simDraw(spec.seed);
    return {
      ok: true,
      value: { taskId: '(no task)', files: [], succeed: draw < p, wrongFile: null, p, draw },
    };
  }
  const taskJson = readText(join(spec.task, 'task.json'));
  if (!taskJson.ok) return taskJson;
  let taskId: string;
  try {
    const id = (JSON.parse(taskJson.value) as { id?: unknown }).id;
    taskId = typeof id === 'string' ? id : '';
  } catch (e) {
    return { ok: false, error: `sim model: ${spec.task}/task.json is not JSON: ${(e as Error).message}` };
  }
  if (taskId === '') return { ok: false, error: `sim model: ${spec.task}/task.json has no id` };
  const patch = readText(join(spec.task, 'reference.patch'));
  if (!patch.ok) return patch;
  const files = parseSimPatch(patch.value);
  const p = chanceOf(spec, taskId);
  if (!p.ok) return p;
  const draw = simDraw(`${spec.seed}\u0000${taskId}`);
  const succeed = draw < p.value;
  // Which file gets the wrong edit: a second, independent draw.
  const pick = Math.floor(simDraw(`${spec.seed}\u0000${taskId}\u0000wrong`) * files.length);
  const wrongFile = succeed ? null : (files[pick]?.path ?? null);
  return { ok: true, value: { taskId, files, succeed, wrongFile, p: p.value, draw } };
}

/** The provider of a `sim:` model record (its id holds the parameters). */
export function simProviderFor(
  model: ModelRecord,
): { ok: true; provider: Provider } | { ok: false; error: string } {
  const parsed = parseSimModelId(model.id);
  if (!parsed.ok) return parsed;
  const plan = simPlanOf(parsed.spec);
  if (!plan.ok) return plan;
  return {
    ok: true,
    provider: createSimProvider(simAgentPolicy(plan.value), { model, latencyMs: parsed.spec.latencyMs }),
  };
}
