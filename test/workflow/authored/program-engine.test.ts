/**
 * A lead's program on the workflow engine (no Postgres: an in-memory log, a host whose attempts
 * answer at once): its ids start with the program's id, a second program of the run is independent,
 * a re-run of the same program replays every logged step without an attempt, and w.map's item limit
 * fails the program before anything runs.
 */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../src/core/events.js';
import type { EventLog } from '../../../src/store/types.js';
import { checkProgram, renderProblems } from '../../../src/workflow/authored/check.js';
import { evaluatorProgram } from '../../../src/workflow/authored/evaluate.js';
import { runWorkflow, type WorkflowHost } from '../../../src/workflow/index.js';
import { memoryLog } from '../../../src/workflow/memory-log.js';

function hostOn(log: EventLog, attempts: string[]): WorkflowHost {
  return {
    runId: 'r-test',
    log,
    signal: new AbortController().signal,
    slots: { run: async (_agent, fn) => ({ ok: true, value: await fn() }) },
    defaultMaxSteps: 5,
    runAttempt: async (request) => {
      attempts.push(request.agent);
      return {
        ok: true,
        outcome: {
          status: 'done',
          stopReason: 'answered',
          reason: '',
          steps: 1,
          finalText: `answer: ${request.task}`,
        },
      };
    },
    runOnMain: async () => ({ exitCode: 0, output: '', durationMs: 0 }),
    scrub: (value) => value,
  };
}

async function compiled(source: string): Promise<string> {
  const checked = await checkProgram(source);
  if (!checked.ok) throw new Error(renderProblems(checked.error));
  return checked.value.js;
}

const PROGRAM = [
  "const results = await w.map(['a', 'b'], (x) => w.agent('explore').run(`look at ${x}`));",
  "const keyed = await w.agent('explore').run('once', { key: 'k' });",
  'return [...results, keyed].map((r) => (r.ok ? r.value : r.error.message));',
].join('\n');

describe('a lead program on the engine', () => {
  it('namespaces its ids, replays logged steps on a re-run, and keeps programs apart', async () => {
    const log = memoryLog();
    const attempts: string[] = [];
    const js = await compiled(PROGRAM);
    const first = await runWorkflow(evaluatorProgram(js), hostOn(log, attempts), { program: 'wf1-c1' });
    expect(first).toEqual({
      ok: true,
      value: ['answer: look at a', 'answer: look at b', 'answer: once'],
      replayed: false,
    });
    const steps = log.events
      .filter((e): e is StoredEvent<'step.finished'> => e.kind === 'step.finished')
      .map((e) => e.data.step)
      .sort();
    expect(steps).toEqual(['wf1-c1/key/k', 'wf1-c1/map-0/explore', 'wf1-c1/map-1/explore']);
    expect(attempts.sort()).toEqual(['wf1-c1.key.k', 'wf1-c1.map-0.explore', 'wf1-c1.map-1.explore']);

    // The same program cut short before its end (no workflow.finished): every step comes from the log.
    const finishedAt = log.events.findIndex((e) => e.kind === 'workflow.finished');
    log.events.splice(finishedAt, 1);
    attempts.length = 0;
    const again = await runWorkflow(evaluatorProgram(js), hostOn(log, attempts), { program: 'wf1-c1' });
    expect(again.ok && again.value).toEqual(['answer: look at a', 'answer: look at b', 'answer: once']);
    expect(attempts).toEqual([]);

    // Another call of the lead is another program, with ids of its own; its unchanged steps re-use
    // what the earlier program finished (step.finished reusedFrom), so none runs an attempt.
    const other = await runWorkflow(evaluatorProgram(js), hostOn(log, attempts), { program: 'wf2-c1' });
    expect(other.ok && other.value).toEqual(['answer: look at a', 'answer: look at b', 'answer: once']);
    expect(attempts).toEqual([]);
    expect(
      log.events
        .filter((e): e is StoredEvent<'step.finished'> => e.kind === 'step.finished')
        .filter((e) => e.data.step.startsWith('wf2-c1/'))
        .map((e) => [e.data.step, e.data.reusedFrom])
        .sort(),
    ).toEqual([
      ['wf2-c1/key/k', 'wf1-c1/key/k'],
      ['wf2-c1/map-0/explore', 'wf1-c1/map-0/explore'],
      ['wf2-c1/map-1/explore', 'wf1-c1/map-1/explore'],
    ]);
    expect(
      log.events
        .filter((e) => e.kind === 'workflow.finished')
        .map((e) => (e.data as { program?: string }).program),
    ).toEqual(['wf1-c1', 'wf2-c1']);
  });

  it('fails a program whose w.map has more items than the limit, before any step', async () => {
    const attempts: string[] = [];
    const js = await compiled("return w.map(['a', 'b', 'c'], (x) => w.agent('explore').run(x));");
    const outcome = await runWorkflow(evaluatorProgram(js), hostOn(memoryLog(), attempts), {
      program: 'wf1-c2',
      maxMapItems: 2,
    });
    expect(outcome).toMatchObject({ ok: false, error: 'map: 3 items, at most 2 per map in this run' });
    expect(attempts).toEqual([]);
  });
});
