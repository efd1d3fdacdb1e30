/**
 * One agent step: attempts (each a fresh agent named after the step), a time-out per attempt, one
 * output repair per attempt, retries with jittered back-off, and durable replay — a step whose
 * `step.finished` is in the log returns that result without running anything; an attempt whose
 * `step.attempt` is logged is not run again; an attempt cut short by a crash replays its agents' logs.
 */
import type { z } from 'zod';
import { retryDelayMs, sleep } from './backoff.js';
import { attemptAgentName, hashText } from './call-path.js';
import type { AttemptOutcome, Emit, WorkflowHost } from './host.js';
import { outputInstruction, parseOutput, repairTask } from './output.js';
import { attemptKey, type ReplayIndex, reusableStep } from './replay.js';
import { type EngineActivity, holdUntilSettled } from './settle.js';
import type { AgentDefinition, RunOptions, StepError, StepErrorKind, StepResult } from './types.js';

export class WorkflowDeterminismError extends Error {}

export interface StepContext {
  host: WorkflowHost;
  replay: ReplayIndex;
  emit: Emit;
  /** Back-off base in ms (tests shorten it). */
  retryBaseMs: number;
  /** The engine's log writes: a DAG step's end holds the slots until they settled (settle.ts). */
  activity: EngineActivity;
}

/** A step's id and place: `rank` is its remaining critical path in a `w.dag` (null outside one). */
export interface StepPlace {
  step: string;
  stage: string | null;
  keyed: boolean;
  rank: number | null;
}

interface AttemptEnd {
  ok: boolean;
  value?: unknown;
  text: string;
  agents: string[];
  error?: StepError;
}

/** Errors that another attempt cannot fix. */
const FINAL_KINDS: ReadonlySet<StepErrorKind> = new Set(['budget', 'limit', 'aborted']);

export async function runStep(
  ctx: StepContext,
  id: StepPlace,
  definition: AgentDefinition,
  task: string,
  options: RunOptions<z.ZodType | undefined>,
): Promise<StepResult<unknown>> {
  const { host, replay, emit } = ctx;
  const { step, stage } = id;
  const fullTask = options.output ? task + outputInstruction(options.output) : task;
  const taskHash = hashText(`${definition.profile}\n${definition.instructions ?? ''}\n${fullTask}`);

  const logged = replay.stepsFinished.get(step);
  const started = replay.stepsStarted.get(step);
  if (started && !id.keyed && started.taskHash !== taskHash) {
    throw new WorkflowDeterminismError(
      `step ${step} was started with a different task before the resume: the program is not deterministic (see docs/workflows.md)`,
    );
  }
  if (logged) return finishedResult(step, logged);
  // An edited program: the same step (path in the program, task) finished in an earlier program of
  // this run — a landed merge included — so its result is re-used instead of running it again.
  // (A step that ran an attempt of its own in this program is not one: it continues as below.)
  const earlier = replay.attempts.has(attemptKey(step, 1)) ? undefined : reusableStep(replay, step, taskHash);
  if (earlier) {
    if (!started)
      await emit('step.started', {
        step,
        stage,
        label: definition.name ?? definition.profile,
        profile: definition.profile,
        taskHash,
      });
    const { step: from, stage: _stage, reusedFrom: _from, ...result } = earlier;
    await emit('step.finished', { ...result, step, stage, reusedFrom: from });
    return finishedResult(step, earlier);
  }
  if (!started) {
    await emit('step.started', {
      step,
      stage,
      label: definition.name ?? definition.profile,
      profile: definition.profile,
      taskHash,
    });
  }

  const maxAttempts = 1 + Math.max(0, Math.floor(options.retries ?? 0));
  let last: AttemptEnd | null = null;
  let attempt = 1;
  for (; attempt <= maxAttempts; attempt++) {
    const previous = replay.attempts.get(attemptKey(step, attempt));
    if (previous?.ok) {
      // A crash between step.attempt and step.finished: the attempt's agents replay from the log.
      last = await runAttempt(ctx, id, attempt, definition, fullTask, options);
      if (last.error?.kind === 'aborted') return { ok: false, error: last.error, step, attempts: attempt };
      break;
    }
    if (previous) {
      const kind = (previous.errorKind as StepErrorKind | undefined) ?? 'failed';
      last = { ok: false, text: '', agents: previous.agents, error: { kind, message: previous.error ?? '' } };
      if (FINAL_KINDS.has(kind)) break;
      continue;
    }
    if (attempt > 1) await sleep(retryDelayMs(attempt - 1, ctx.retryBaseMs), host.signal);
    last = await runAttempt(ctx, id, attempt, definition, fullTask, options);
    if (last.error?.kind === 'aborted') return { ok: false, error: last.error, step, attempts: attempt };
    await emit('step.attempt', {
      step,
      stage,
      attempt,
      agents: last.agents,
      ok: last.ok,
      ...(last.error ? { errorKind: last.error.kind, error: last.error.message } : {}),
    });
    if (last.ok) break;
    if (last.error && FINAL_KINDS.has(last.error.kind)) break;
  }
  const attempts = Math.min(attempt, maxAttempts);
  const end = last ?? {
    ok: false,
    text: '',
    agents: [],
    error: { kind: 'failed' as const, message: 'no attempt ran' },
  };
  if (end.ok) {
    await emit('step.finished', { step, stage, ok: true, attempts, value: end.value, text: end.text });
    return { ok: true, value: end.value, text: end.text, step, attempts };
  }
  const error = end.error ?? { kind: 'failed' as const, message: 'failed' };
  await emit('step.finished', {
    step,
    stage,
    ok: false,
    attempts,
    errorKind: error.kind,
    error: error.message,
  });
  return { ok: false, error, step, attempts };
}

async function runAttempt(
  ctx: StepContext,
  place: StepPlace,
  attempt: number,
  definition: AgentDefinition,
  task: string,
  options: RunOptions<z.ZodType | undefined>,
): Promise<AttemptEnd> {
  const { step, rank } = place;
  const agent = attemptAgentName(step, attempt, false);
  const first = await runAgentOnce(ctx, agent, rank, definition, task, options);
  if (!first.ok) return { ok: false, text: '', agents: [agent], error: first.error };
  const text = first.outcome.finalText;
  if (!options.output) return { ok: true, value: text, text, agents: [agent] };
  const parsed = parseOutput(text, options.output);
  if (parsed.ok) return { ok: true, value: parsed.value, text, agents: [agent] };

  // One repair: a fresh agent gets the task, its answer and what was wrong with it.
  const repairAgent = attemptAgentName(step, attempt, true);
  const agents = [agent, repairAgent];
  const repair = await runAgentOnce(
    ctx,
    repairAgent,
    rank,
    definition,
    repairTask(task, text, parsed.problem),
    options,
  );
  if (!repair.ok) return { ok: false, text, agents, error: repair.error };
  const repaired = parseOutput(repair.outcome.finalText, options.output);
  if (repaired.ok) return { ok: true, value: repaired.value, text: repair.outcome.finalText, agents };
  return {
    ok: false,
    text: repair.outcome.finalText,
    agents,
    error: { kind: 'invalid_output', message: `output still invalid after one repair: ${repaired.problem}` },
  };
}

type AgentRun = { ok: true; outcome: AttemptOutcome } | { ok: false; error: StepError };

async function runAgentOnce(
  ctx: StepContext,
  agent: string,
  rank: number | null,
  definition: AgentDefinition,
  task: string,
  options: RunOptions<z.ZodType | undefined>,
): Promise<AgentRun> {
  const { host } = ctx;
  const controller = new AbortController();
  const stopAll = () => controller.abort();
  host.signal.addEventListener('abort', stopAll, { once: true });
  let timedOut = false;
  const timer =
    options.timeout !== undefined
      ? setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, options.timeout)
      : null;
  try {
    const slot = await host.slots.run(
      agent,
      async () => {
        try {
          return await host.runAttempt({
            agent,
            profile: definition.profile,
            instructions: definition.instructions,
            task,
            maxSteps: definition.maxSteps ?? host.defaultMaxSteps,
            signal: controller.signal,
            budget: options.budget,
          });
        } finally {
          // A DAG step's slot goes to the best step waiting once this end's consequences are logged.
          if (rank !== null) holdUntilSettled(host.slots, ctx.activity);
        }
      },
      { priority: options.priority ?? 0, ...(rank !== null ? { rank } : {}) },
    );
    if (!slot.ok) {
      const kind = slot.error.kind === 'aborted' ? 'aborted' : 'limit';
      return { ok: false, error: { kind, message: `${slot.error.kind}: ${slot.error.message}` } };
    }
    const result = slot.value;
    if (!result.ok) return { ok: false, error: { kind: 'failed', message: result.error } };
    const outcome = result.outcome;
    if (outcome.stopReason === 'aborted') {
      if (timedOut)
        return { ok: false, error: { kind: 'timeout', message: `timed out after ${options.timeout} ms` } };
      if (host.signal.aborted)
        return { ok: false, error: { kind: 'aborted', message: 'the run is stopping' } };
      // Replayed: this agent was stopped in an earlier process (a stopped run, or a time-out whose
      // step.attempt was not logged before a crash). It cannot continue; a retry starts a fresh agent.
      return { ok: false, error: { kind: 'failed', message: 'the agent was stopped in an earlier process' } };
    }
    const kind = errorKindOf(outcome);
    if (kind) return { ok: false, error: { kind, message: outcome.merge?.detail ?? outcome.reason } };
    return { ok: true, outcome };
  } finally {
    if (timer) clearTimeout(timer);
    host.signal.removeEventListener('abort', stopAll);
  }
}

function errorKindOf(outcome: AttemptOutcome): StepErrorKind | null {
  if (outcome.stopReason === 'budget_usd' || outcome.stopReason === 'budget_tokens') return 'budget';
  if (outcome.stopReason === 'max_steps') return 'max_steps';
  if (outcome.status !== 'done') return 'failed';
  if (outcome.merge && outcome.merge.status !== 'landed' && outcome.merge.status !== 'nothing_to_merge')
    return 'merge_rejected';
  return null;
}

function finishedResult(
  step: string,
  logged: NonNullable<ReturnType<ReplayIndex['stepsFinished']['get']>>,
): StepResult<unknown> {
  if (logged.ok)
    return { ok: true, value: logged.value, text: logged.text ?? '', step, attempts: logged.attempts };
  return {
    ok: false,
    error: { kind: (logged.errorKind as StepErrorKind) ?? 'failed', message: logged.error ?? '' },
    step,
    attempts: logged.attempts,
  };
}
