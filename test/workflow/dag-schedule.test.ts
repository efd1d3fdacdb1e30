/**
 * Critical-path-first scheduling of w.dag (src/workflow/critical-path.ts, engine.ts, the run
 * scheduler's rank and hold) on a fake clock the test controls: every attempt takes one tick; the
 * makespan is the number of ticks until the program returns. No Postgres, no model, no wall time:
 * an in-memory log, the real Scheduler, attempts that end when the test advances the clock.
 */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import { resolveLimits, Scheduler } from '../../src/run/scheduler.js';
import type { EngineOptions, WorkflowOutcome } from '../../src/workflow/engine.js';
import { runWorkflow, type WorkflowHost, type WorkflowProgram } from '../../src/workflow/index.js';
import { memoryLog } from '../../src/workflow/memory-log.js';

/** Every promise callback and setImmediate the engine queued has run (no wall-clock wait). */
async function quiet(): Promise<void> {
  for (let i = 0; i < 50; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

interface ClockRun {
  makespan: number;
  /** Tick each attempt's agent started at. */
  startedAt: Map<string, number>;
  outcome: WorkflowOutcome;
  log: ReturnType<typeof memoryLog>;
}

async function runOnClock(
  program: WorkflowProgram,
  concurrency: number,
  options: EngineOptions = {},
  log = memoryLog(),
): Promise<ClockRun> {
  const scheduler = new Scheduler({ runId: 'r-clock', log, limits: resolveLimits({ concurrency }) });
  let now = 0;
  const running: Array<() => void> = [];
  const startedAt = new Map<string, number>();
  const host: WorkflowHost = {
    runId: 'r-clock',
    log,
    signal: new AbortController().signal,
    slots: scheduler,
    defaultMaxSteps: 5,
    runAttempt: (request) =>
      new Promise((resolve) => {
        startedAt.set(request.agent, now);
        running.push(() =>
          resolve({
            ok: true,
            outcome: {
              status: 'done',
              stopReason: 'answered',
              reason: '',
              steps: 1,
              finalText: request.task,
            },
          }),
        );
      }),
    runOnMain: async () => ({ exitCode: 0, output: '', durationMs: 0 }),
    scrub: (value) => value,
  };
  let finished = false;
  const done = runWorkflow(program, host, options).finally(() => {
    finished = true;
  });
  for (;;) {
    await quiet();
    if (finished) break;
    if (running.length === 0) throw new Error(`nothing runs at tick ${now} and the program has not returned`);
    expect(running.length).toBeLessThanOrEqual(concurrency);
    now += 1;
    for (const end of running.splice(0)) end();
  }
  return { makespan: now, startedAt, outcome: await done, log };
}

const step = (w: Parameters<WorkflowProgram>[0], name: string, priority?: number) =>
  w.agent({ profile: 'explore', name: 'x' }).run(name, priority === undefined ? {} : { priority });

/** Four independent single nodes declared first, then one chain of four. */
const SINGLES = ['s1', 's2', 's3', 's4'];
const CHAIN = ['a1', 'a2', 'a3', 'a4'];
function singlesThenChain(singlesPriority?: number): WorkflowProgram {
  return (w) =>
    w.dag({
      ...Object.fromEntries(SINGLES.map((n) => [n, { run: () => step(w, n, singlesPriority) }])),
      ...Object.fromEntries(
        CHAIN.map((n, i) => [n, { after: i === 0 ? [] : [CHAIN[i - 1] as string], run: () => step(w, n) }]),
      ),
    });
}

/**
 * The makespan of a list schedule of unit-time nodes on `slots` workers, computed from the graph
 * alone: at every tick the ready nodes sorted by `before` take the free workers.
 */
function listMakespan(
  nodes: Array<{ name: string; after: string[] }>,
  slots: number,
  before: (a: string, b: string) => number,
): number {
  const done = new Set<string>();
  let ticks = 0;
  while (done.size < nodes.length) {
    const ready = nodes
      .filter((n) => !done.has(n.name) && n.after.every((a) => done.has(a)))
      .map((n) => n.name)
      .sort(before);
    for (const name of ready.slice(0, slots)) done.add(name);
    ticks += 1;
  }
  return ticks;
}

const GRAPH = [
  ...SINGLES.map((name) => ({ name, after: [] as string[] })),
  ...CHAIN.map((name, i) => ({ name, after: i === 0 ? [] : [CHAIN[i - 1] as string] })),
];
const declared = (name: string) => GRAPH.findIndex((n) => n.name === name);
/** Remaining chain length of a node (unit weights): 4..1 along the chain, 1 for a single. */
const rank = (name: string) => (CHAIN.includes(name) ? CHAIN.length - CHAIN.indexOf(name) : 1);

describe('w.dag scheduling with 2 agent slots: 4 single nodes declared first, then a chain of 4', () => {
  // First come (declaration order among the ready): s1 s2 | s3 s4 | a1 | a2 | a3 | a4 → 6 ticks.
  const firstCome = listMakespan(GRAPH, 2, (a, b) => declared(a) - declared(b));
  // Longest remaining chain first: a1 s1 | a2 s2 | a3 s3 | a4 s4 → 4 ticks.
  const criticalFirst = listMakespan(GRAPH, 2, (a, b) => rank(b) - rank(a) || declared(a) - declared(b));

  it('the construction: first come takes 6 ticks, critical path first 4', () => {
    expect(firstCome).toBe(6);
    expect(criticalFirst).toBe(4);
  });

  it('runs the longest chain first: makespan 4, the chain never waits', async () => {
    const run = await runOnClock(singlesThenChain(), 2);
    expect(run.outcome.ok).toBe(true);
    expect(run.makespan).toBe(criticalFirst);
    expect(CHAIN.map((n) => run.startedAt.get(`${n}.x`))).toEqual([0, 1, 2, 3]);
    expect(SINGLES.map((n) => run.startedAt.get(`${n}.x`))).toEqual([0, 1, 2, 3]);
  });

  it('beats first-come order, measured the same way (makespan 6)', async () => {
    const run = await runOnClock(singlesThenChain(), 2, { dagOrder: 'declaration' });
    expect(run.outcome.ok).toBe(true);
    expect(run.makespan).toBe(firstCome);
    expect(run.makespan).toBeGreaterThan(criticalFirst);
    expect(CHAIN.map((n) => run.startedAt.get(`${n}.x`))).toEqual([2, 3, 4, 5]);
  });

  it('logs the plan before any node starts: its critical path and CriticalSteps', async () => {
    const run = await runOnClock(singlesThenChain(), 2);
    const kinds = run.log.events.map((e) => e.kind);
    expect(kinds.indexOf('workflow.planned')).toBeGreaterThanOrEqual(0);
    expect(kinds.indexOf('workflow.planned')).toBeLessThan(kinds.indexOf('stage.started'));
    const planned = run.log.events.find(
      (e) => e.kind === 'workflow.planned',
    ) as StoredEvent<'workflow.planned'>;
    expect(planned.data).toMatchObject({ dag: 's1', stage: null, criticalPath: CHAIN, criticalSteps: 4 });
    expect(planned.data.nodes.map((n) => [n.stage, n.weight, n.rank])).toEqual(
      GRAPH.map((n) => [n.name, 1, rank(n.name)]),
    );
  });

  it('keeps an explicit priority first: singles with priority 1 start before the chain', async () => {
    const run = await runOnClock(singlesThenChain(1), 2);
    expect(SINGLES.map((n) => run.startedAt.get(`${n}.x`))).toEqual([0, 0, 1, 1]);
    expect(run.makespan).toBe(6);
  });

  it('weighs nodes by recorded steps: heavy singles outrank the chain', async () => {
    const heavy = new Map(SINGLES.map((n) => [n, 5]));
    const run = await runOnClock(singlesThenChain(), 2, { stageWeights: heavy });
    expect(SINGLES.map((n) => run.startedAt.get(`${n}.x`))).toEqual([0, 0, 1, 1]);
    const planned = run.log.events.find(
      (e) => e.kind === 'workflow.planned',
    ) as StoredEvent<'workflow.planned'>;
    expect(planned.data.criticalSteps).toBe(5);
    expect(planned.data.criticalPath).toEqual(['s1']);
    expect(planned.data.nodes.filter((n) => n.recorded).map((n) => n.stage)).toEqual(SINGLES);
  });

  it('schedules a resumed program by the plan it logged, not by weights read again', async () => {
    // The first process planned with heavy singles and was stopped before any node started.
    const first = await runOnClock(singlesThenChain(), 2, {
      stageWeights: new Map(SINGLES.map((n) => [n, 5])),
    });
    const plannedOnly = first.log.events.filter((e) => e.kind === 'workflow.planned');
    // The resumed process reads no recorded weights (every node would weigh 1): the logged plan wins.
    const resumed = await runOnClock(singlesThenChain(), 2, {}, memoryLog(plannedOnly));
    expect(SINGLES.map((n) => resumed.startedAt.get(`${n}.x`))).toEqual([0, 0, 1, 1]);
    expect(resumed.log.events.filter((e) => e.kind === 'workflow.planned')).toHaveLength(1);
  });

  it('fails the program on a cycle before anything runs', async () => {
    const run = await runOnClock(
      (w) =>
        w.dag({
          a: { after: ['b'], run: () => step(w, 'a') },
          b: { after: ['a'], run: () => step(w, 'b') },
        }),
      2,
    );
    expect(run.outcome).toMatchObject({ ok: false, error: 'dag: cycle a → b → a' });
    expect(run.startedAt.size).toBe(0);
  });
});
