/**
 * A lead's program (type-checked, run in the evaluator) with a w.dag: its plan is logged under the
 * program's id, and with one agent slot its chain's steps start before the single nodes that tie
 * with nothing (the run's real Scheduler, an in-memory log, attempts that answer at once).
 */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../src/core/events.js';
import { resolveLimits, Scheduler } from '../../../src/run/scheduler.js';
import { checkProgram, renderProblems } from '../../../src/workflow/authored/check.js';
import { evaluatorProgram } from '../../../src/workflow/authored/evaluate.js';
import { runWorkflow, type WorkflowHost } from '../../../src/workflow/index.js';
import { memoryLog } from '../../../src/workflow/memory-log.js';

const PROGRAM = [
  "const node = (name: string) => async () => { const r = await w.agent({ profile: 'explore', name: 'x' }).run(name); return r.ok; };",
  'return w.dag({',
  "  s1: { run: node('s1') }, s2: { run: node('s2') }, s3: { run: node('s3') }, s4: { run: node('s4') },",
  "  a1: { run: node('a1') }, a2: { after: ['a1'], run: node('a2') },",
  "  a3: { after: ['a2'], run: node('a3') }, a4: { after: ['a3'], run: node('a4') },",
  '});',
].join('\n');

describe('a lead program with w.dag', () => {
  it('logs its plan under the program id and starts the chain first', async () => {
    const checked = await checkProgram(PROGRAM);
    if (!checked.ok) throw new Error(renderProblems(checked.error));
    const log = memoryLog();
    const attempts: string[] = [];
    const host: WorkflowHost = {
      runId: 'r-lead',
      log,
      signal: new AbortController().signal,
      slots: new Scheduler({ runId: 'r-lead', log, limits: resolveLimits({ concurrency: 1 }) }),
      defaultMaxSteps: 5,
      runAttempt: async (request) => {
        attempts.push(request.agent);
        return {
          ok: true,
          outcome: { status: 'done', stopReason: 'answered', reason: '', steps: 1, finalText: request.task },
        };
      },
      runOnMain: async () => ({ exitCode: 0, output: '', durationMs: 0 }),
      scrub: (value) => value,
    };
    const outcome = await runWorkflow(evaluatorProgram(checked.value.js), host, { program: 'wf1-c1' });
    expect(outcome.ok).toBe(true);
    const planned = log.events.find((e) => e.kind === 'workflow.planned') as StoredEvent<'workflow.planned'>;
    expect(planned.data).toMatchObject({
      dag: 'wf1-c1/s1',
      program: 'wf1-c1',
      criticalSteps: 4,
      criticalPath: ['wf1-c1/a1', 'wf1-c1/a2', 'wf1-c1/a3', 'wf1-c1/a4'],
    });
    // One slot: a1 a2 a3 (ranks 4 3 2), then the rank-1 steps in the order they asked (s1..s4, a4).
    expect(attempts.map((a) => a.replace('wf1-c1.', '').replace('.x', ''))).toEqual([
      'a1',
      'a2',
      'a3',
      's1',
      's2',
      's3',
      's4',
      'a4',
    ]);
  });
});
