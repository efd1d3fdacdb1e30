/**
 * The workflow engine: builds `w` for a program and runs it against a host. Stages, parallel
 * branches, map items and DAG nodes get their own call-path scopes (call-path.ts); agent steps run
 * through step.ts; sync points run on hub main. Every fact is an event, and a resumed program gets
 * logged results back instead of running them again (the determinism rule: docs/workflows.md).
 */
import { z } from 'zod';
import { type EventKind, type EventPayloads, eventOf } from '../core/events.js';
import { type ChainPosition, currentScope, inScope, Scope, segment } from './call-path.js';
import { checkDagShape, type DagPlan, planDag } from './critical-path.js';
import { dedupeBy } from './dedupe.js';
import type { Emit, WorkflowHost } from './host.js';
import { mapLimited } from './limiter.js';
import { type ReplayIndex, readReplayIndex } from './replay.js';
import { EngineActivity, holdUntilSettled } from './settle.js';
import { runStep, type StepContext } from './step.js';
import type {
  AgentDefinition,
  AgentHandle,
  DagNode,
  RunOptions,
  StepResult,
  SyncResult,
  Workflow,
  WorkflowProgram,
} from './types.js';

export type WorkflowOutcome =
  | { ok: true; value: unknown; replayed: boolean }
  | { ok: false; error: string; aborted: boolean; replayed: boolean };

export interface EngineOptions {
  args?: Record<string, string>;
  /** Back-off base of retries in ms (default 500). */
  retryBaseMs?: number;
  /**
   * A program among several of one run (the orchestrated lead's run_workflow calls): every stage,
   * step, sync and key id starts with it, and its `workflow.finished` carries it. Default: the run's
   * one program (ids as in docs/workflows.md).
   */
  program?: string;
  /** At most this many items per w.map (more fail the program before any item runs). Default: none. */
  maxMapItems?: number;
  /**
   * Recorded model steps of DAG nodes (stage id → steps) from earlier runs of the same program: a
   * node's weight in its `w.dag` plan (critical-path.ts). A node without one weighs 1.
   */
  stageWeights?: ReadonlyMap<string, number>;
  /**
   * How `w.dag` orders ready work when agent slots are scarce: `critical-path` (default) starts the
   * longest remaining chain first; `declaration` is first come, first served in declaration order
   * (the order before critical-path scheduling; kept to measure one against the other).
   */
  dagOrder?: 'critical-path' | 'declaration';
}

export async function runWorkflow(
  program: WorkflowProgram,
  host: WorkflowHost,
  options: EngineOptions = {},
): Promise<WorkflowOutcome> {
  const replay = await readReplayIndex(host.log, host.runId, options.program);
  if (replay.finished) {
    const f = replay.finished;
    return f.ok
      ? { ok: true, value: f.value, replayed: true }
      : { ok: false, error: f.error ?? 'failed', aborted: false, replayed: true };
  }
  const activity = new EngineActivity();
  const emit: Emit = <K extends EventKind>(kind: K, data: EventPayloads[K], agent: string | null = null) =>
    activity.track(() => host.log.append(eventOf(host.runId, agent, kind, host.scrub(data))));
  const w = createWorkflow(host, replay, emit, activity, options);
  let outcome: WorkflowOutcome;
  try {
    const value = await program(w);
    outcome = { ok: true, value: toJson(value), replayed: false };
  } catch (err) {
    outcome = { ok: false, error: (err as Error).message ?? String(err), aborted: false, replayed: false };
  }
  // A stopped run is not finished: `colony resume` carries on from the logged steps.
  if (host.signal.aborted) {
    return { ok: false, error: 'stopped by request', aborted: true, replayed: false };
  }
  const tag = options.program !== undefined ? { program: options.program } : {};
  await emit(
    'workflow.finished',
    outcome.ok ? { ok: true, value: outcome.value, ...tag } : { ok: false, error: outcome.error, ...tag },
  );
  return outcome;
}

function createWorkflow(
  host: WorkflowHost,
  replay: ReplayIndex,
  emit: Emit,
  activity: EngineActivity,
  options: EngineOptions,
): Workflow {
  const root = new Scope(options.program ?? '', null);
  const stepCtx: StepContext = { host, replay, emit, retryBaseMs: options.retryBaseMs ?? 500, activity };
  const criticalPathFirst = (options.dagOrder ?? 'critical-path') === 'critical-path';
  /** Steps by id: a keyed step called twice (or concurrently) runs once. */
  const steps = new Map<string, Promise<StepResult<unknown>>>();

  const runStage = async <T>(
    id: string,
    name: string,
    parentStage: string | null,
    after: string[],
    fn: () => Promise<T>,
    chain: ChainPosition | null = currentScope(root).chain,
  ): Promise<T> => {
    if (!replay.stagesStarted.has(id))
      await emit('stage.started', { stage: id, name, parent: parentStage, after });
    const started = performance.now();
    const finish = async (ok: boolean, error?: string) => {
      if (replay.stagesFinished.has(id) || host.signal.aborted) return;
      await emit('stage.finished', {
        stage: id,
        ok,
        durationMs: Math.round(performance.now() - started),
        ...(error ? { error } : {}),
      });
    };
    try {
      const value = await inScope(new Scope(id, id, chain), fn);
      await finish(true);
      return value;
    } catch (err) {
      await finish(false, (err as Error).message);
      throw err;
    }
  };

  const agent = (profileOrDefinition: string | AgentDefinition): AgentHandle => {
    const definition =
      typeof profileOrDefinition === 'string' ? { profile: profileOrDefinition } : profileOrDefinition;
    const run = (task: string, runOptions: RunOptions<z.ZodType | undefined> = {}) => {
      const scope = currentScope(root);
      const keyed = runOptions.key !== undefined;
      const step = keyed
        ? root.childId(`key/${segment(runOptions.key as string)}`)
        : scope.childId(scope.allocate(definition.name ?? definition.profile));
      const existing = steps.get(step);
      if (existing) return existing;
      const rank = scope.chain?.rank ?? null;
      const pending = runStep(
        stepCtx,
        { step, stage: scope.stage, keyed, rank },
        definition,
        task,
        runOptions,
      );
      steps.set(step, pending);
      return pending;
    };
    return { run } as AgentHandle;
  };

  const branches = <T>(label: string, fns: Array<() => Promise<T>>, limit: number): Promise<T[]> => {
    const scope = currentScope(root);
    const base = scope.allocate(label);
    return mapLimited(fns, limit, (fn, i) => inScope(scope.child(`${base}-${i}`), fn));
  };

  /**
   * A DAG's plan: the one logged by an earlier process of this run (so a resumed program schedules
   * as it did), else weighed now (recorded steps of earlier runs, else 1) and logged as
   * `workflow.planned` before any of its nodes starts.
   */
  const planOf = async (
    stage: string | null,
    names: string[],
    nodes: Record<string, DagNode>,
    ids: ReadonlyMap<string, string>,
  ): Promise<{ plan: DagPlan; nodes: Array<{ name: string; weight: number }> }> => {
    const dag = ids.get(names[0] ?? '') ?? '';
    const logged = replay.plans.get(dag);
    const loggedWeight = new Map(logged?.nodes.map((n) => [n.stage, n.weight]));
    const weighed = names.map((name) => {
      const id = ids.get(name) as string;
      const recorded = options.stageWeights?.get(id);
      const weight = loggedWeight.get(id) ?? recorded ?? 1;
      return { name, id, after: nodes[name]?.after ?? [], weight, recorded: recorded !== undefined };
    });
    const plan = planDag(weighed);
    if (!logged && names.length > 0) {
      const idOf = (name: string) => ids.get(name) as string;
      await emit('workflow.planned', {
        dag,
        stage,
        nodes: weighed.map((n) => ({
          stage: n.id,
          name: n.name,
          after: n.after.map(idOf),
          weight: n.weight,
          recorded: n.recorded,
          rank: plan.ranks.get(n.name) ?? 0,
        })),
        criticalPath: plan.criticalPath.map(idOf),
        criticalSteps: plan.criticalSteps,
        ...(options.program !== undefined ? { program: options.program } : {}),
      });
    }
    return { plan, nodes: weighed };
  };

  return {
    args: Object.freeze({ ...(options.args ?? {}) }),
    z,
    agent,
    parallel: (...fns) => branches('parallel', fns, fns.length),
    map: (items, fn, mapOptions) => {
      const max = options.maxMapItems;
      if (max !== undefined && items.length > max)
        return Promise.reject(new Error(`map: ${items.length} items, at most ${max} per map in this run`));
      return branches(
        'map',
        items.map((item, i) => () => fn(item, i)),
        mapOptions?.concurrency ?? items.length,
      );
    },
    stage(name, fn) {
      const scope = currentScope(root);
      return runStage(scope.childId(scope.allocate(name)), name, scope.stage, [], fn);
    },
    async dag(nodes) {
      const scope = currentScope(root);
      const names = Object.keys(nodes);
      checkDagShape(names.map((name) => ({ name, after: nodes[name]?.after ?? [], weight: 1 })));
      // Ids are allocated up front in declaration order, so they do not depend on finishing order.
      const ids = new Map(names.map((name) => [name, scope.childId(scope.allocate(name))]));
      const plan = await planOf(scope.stage, names, nodes, ids);
      const tail = scope.chain?.tail ?? 0;
      const weights = new Map(plan.nodes.map((n) => [n.name, n.weight]));
      const chainOf = (name: string): ChainPosition | null => {
        if (!criticalPathFirst) return null;
        const rank = tail + (plan.plan.ranks.get(name) ?? 0);
        return { rank, tail: rank - (weights.get(name) ?? 0) };
      };
      const running = new Map<string, Promise<unknown>>();
      const start = (name: string): Promise<unknown> => {
        let pending = running.get(name);
        if (pending) return pending;
        const node = nodes[name] as DagNode;
        const after = node.after ?? [];
        pending = (async () => {
          const inputs: Record<string, unknown> = {};
          for (const [i, value] of (await Promise.all(after.map(start))).entries())
            inputs[after[i] as string] = value;
          return runStage(
            ids.get(name) as string,
            name,
            scope.stage,
            after.map((a) => ids.get(a) as string),
            () => node.run(inputs),
            chainOf(name),
          );
        })();
        running.set(name, pending);
        return pending;
      };
      if (criticalPathFirst) {
        // The ready nodes ask for slots together; the longest chains get them (critical-path.ts).
        holdUntilSettled(host.slots, activity);
        for (const name of plan.plan.order) start(name);
      }
      const values = await Promise.all(names.map(start));
      return Object.fromEntries(names.map((name, i) => [name, values[i]])) as never;
    },
    async sync(point, command): Promise<SyncResult> {
      const scope = currentScope(root);
      const step = scope.childId(scope.allocate(`sync-${point}`));
      const logged = replay.syncs.get(step);
      if (logged)
        return { point, command, passed: logged.passed, exitCode: logged.exitCode, output: logged.output };
      const result = await host.runOnMain(command);
      const passed = result.exitCode === 0;
      await emit('sync.finished', {
        step,
        stage: scope.stage,
        point,
        command,
        exitCode: result.exitCode,
        passed,
        output: result.output,
        durationMs: result.durationMs,
      });
      return { point, command, passed, exitCode: result.exitCode, output: result.output };
    },
    dedupe: dedupeBy,
  };
}

/** The program's result goes into the log as JSON. */
function toJson(value: unknown): unknown {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as unknown;
  } catch {
    return String(value);
  }
}
