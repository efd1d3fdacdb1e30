/**
 * A workflow program's DAG plans without running it (`colony plan --workflow FILE`): the program runs
 * on the real engine over a host that starts no agent and runs no command — every step resolves at
 * once as a failure (`colony plan runs no agents`), every sync point as not passed — and the plans
 * the engine logs for its `w.dag` calls (workflow.planned: nodes, weights, ranks, critical path,
 * CriticalSteps) are collected from an in-memory log. Ids, weights and ranks are the ones a real run
 * would plan. A program that branches on step results sees failures here, so it may plan fewer DAGs
 * than a real run (or stop early: `stopped` says why).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredEvent } from '../core/events.js';
import { plannedPath } from '../view/critical-path.js';
import { foldEvents } from '../view/run-state.js';
import { runWorkflow } from './engine.js';
import type { WorkflowHost } from './host.js';
import { programFromSource, readProgramSource } from './load.js';
import { memoryLog } from './memory-log.js';

export type PlannedDag = StoredEvent<'workflow.planned'>['data'];

export interface ProgramPlan {
  file: string;
  /** Every `w.dag` the program called, in call order. */
  dags: PlannedDag[];
  /** The plans' CriticalSteps (DAGs one after another add up; one inside another's node does not). */
  criticalSteps: number;
  criticalPath: string[];
  /** Steps the program asked for (none ran). */
  steps: number;
  /** The program's error, when it did not return (it may have needed a real step result). */
  stopped: string | null;
}

export const NO_AGENTS = 'colony plan runs no agents';

export async function planProgramFile(
  file: string,
  options: { args?: Record<string, string>; stageWeights?: ReadonlyMap<string, number> } = {},
): Promise<{ ok: true; plan: ProgramPlan } | { ok: false; error: string }> {
  const read = await readProgramSource(file);
  if (!read.ok) return read;
  const loaded = await programFromSource(read.source.js, join(tmpdir(), 'colony-plan'));
  if (!loaded.ok) return loaded;
  const log = memoryLog();
  let steps = 0;
  const host: WorkflowHost = {
    runId: 'plan',
    log,
    signal: new AbortController().signal,
    slots: { run: async (_agent, fn) => ({ ok: true, value: await fn() }) },
    defaultMaxSteps: 1,
    runAttempt: async () => {
      steps += 1;
      return { ok: false, error: NO_AGENTS };
    },
    runOnMain: async () => ({ exitCode: null, output: 'colony plan runs no commands', durationMs: 0 }),
    scrub: (value) => value,
  };
  const outcome = await runWorkflow(loaded.program, host, {
    args: options.args ?? {},
    retryBaseMs: 0,
    ...(options.stageWeights ? { stageWeights: options.stageWeights } : {}),
  });
  const dags = log.events.flatMap((e) => (e.kind === 'workflow.planned' ? [e.data as PlannedDag] : []));
  const planned = plannedPath(foldEvents(log.events));
  return {
    ok: true,
    plan: {
      file,
      dags,
      criticalSteps: planned?.criticalSteps ?? 0,
      criticalPath: planned?.criticalPath ?? [],
      steps,
      stopped: outcome.ok ? null : outcome.error,
    },
  };
}

/** The plan as text: per DAG its nodes (weight, rank, predecessors) and critical path, then the total. */
export function formatProgramPlan(plan: ProgramPlan): string {
  const lines = [
    `workflow ${plan.file}: ${plan.dags.length} dag(s), ${plan.steps} step(s) asked for, none run`,
  ];
  for (const dag of plan.dags) {
    lines.push(
      '',
      `dag ${dag.dag}${dag.stage ? ` (in ${dag.stage})` : ''}: CriticalSteps ${dag.criticalSteps}`,
    );
    lines.push(`  critical path: ${dag.criticalPath.join(' → ')}`);
    const byRank = [...dag.nodes].sort((a, b) => b.rank - a.rank);
    for (const n of byRank)
      lines.push(
        `  ${n.stage}  weight ${n.weight}${n.recorded ? ' (recorded)' : ''} · rank ${n.rank}${n.after.length > 0 ? ` · after ${n.after.join(', ')}` : ''}`,
      );
  }
  lines.push(
    '',
    plan.dags.length > 0
      ? `plan: CriticalSteps ${plan.criticalSteps} (${plan.criticalPath.join(' → ')})`
      : 'plan: the program called no w.dag',
  );
  lines.push(
    '  weights: model steps an earlier run measured (--from RUN), else 1 per node; ready nodes start by rank',
  );
  if (plan.stopped) lines.push(`  the program stopped without real step results: ${plan.stopped}`);
  return lines.join('\n');
}
