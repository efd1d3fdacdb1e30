/**
 * Re-use across a run's programs (docs/workflows.md, "Edited programs re-use unchanged steps"): a
 * step of a later program whose call path in its program and inputs equal a step an earlier program
 * of the run finished ok returns that result without an attempt. In-memory log, no model: each
 * attempt answers its task (a task with "fail" fails), and the test counts the attempts per task.
 */
import { describe, expect, it } from 'vitest';
import type { EventInput, StoredEvent } from '../../src/core/events.js';
import { resolveLimits, Scheduler } from '../../src/run/scheduler.js';
import type { EventLog } from '../../src/store/types.js';
import { runWorkflow, type Workflow, type WorkflowHost } from '../../src/workflow/index.js';

function memoryLog(): EventLog & { events: StoredEvent[] } {
  const events: StoredEvent[] = [];
  const append = async (event: EventInput) => {
    const stored = {
      ...event,
      seq: events.length + 1,
      ts: new Date(0).toISOString(),
    } as unknown as StoredEvent;
    events.push(stored);
    return stored;
  };
  return {
    events,
    append: append as EventLog['append'],
    appendMany: async (list) => Promise.all(list.map(append)),
    read: (async (_runId: string, options?: { kinds?: string[] }) =>
      events.filter((e) => !options?.kinds || options.kinds.includes(e.kind))) as EventLog['read'],
    verify: async () => ({ ok: true }) as never,
    flush: async () => {},
  };
}

function testHost(): { host: WorkflowHost; asked: string[]; log: ReturnType<typeof memoryLog> } {
  const log = memoryLog();
  const asked: string[] = [];
  const host: WorkflowHost = {
    runId: 'r-reuse',
    log,
    signal: new AbortController().signal,
    slots: new Scheduler({ runId: 'r-reuse', log, limits: resolveLimits({ concurrency: 4 }) }),
    defaultMaxSteps: 5,
    runAttempt: async (request) => {
      asked.push(request.task);
      const failed = request.task.includes('fail');
      return {
        ok: true,
        outcome: {
          status: failed ? 'failed' : 'done',
          stopReason: failed ? 'model_error' : 'answered',
          reason: failed ? 'it failed' : '',
          steps: 1,
          finalText: `answer to ${request.task}`,
        },
      };
    },
    runOnMain: async () => ({ exitCode: 0, output: '', durationMs: 0 }),
    scrub: (value) => value,
  };
  return { host, asked, log };
}

/** A program over items: one explore step per item (w.map), then one keyed step per item. */
const overItems = (items: string[], summary: string) => async (w: Workflow) => {
  const mapped = await w.map(items, (item) => w.agent('explore').run(`look at ${item}`));
  const keyed = await Promise.all(
    items.map((item) => w.agent('explore').run(`key ${item}`, { key: `k-${item}` })),
  );
  const last = await w.agent('plan').run(summary);
  return [...mapped, ...keyed, last].map((r) => (r.ok ? r.value : 'failed'));
};

describe("re-using steps across a run's programs", () => {
  it('runs only the steps whose path or inputs changed, and no failed step is re-used', async () => {
    const { host, asked, log } = testHost();
    const first = await runWorkflow(overItems(['a', 'b', 'fail-c'], 'sum up'), host, { program: 'wf1-x' });
    expect(first.ok).toBe(true);
    expect(asked).toHaveLength(7);
    asked.length = 0;

    // Edited: item fail-c became c (its first run failed), item d appended.
    const second = await runWorkflow(overItems(['a', 'b', 'c', 'd'], 'sum up'), host, { program: 'wf2-y' });
    expect(second.ok).toBe(true);
    // Unchanged: map-0 (a), map-1 (b), key a, key b, the summary. Changed or failed before: the rest.
    expect(asked.sort()).toEqual(['key c', 'key d', 'look at c', 'look at d'].sort());
    const reused = log.events
      .filter((e): e is StoredEvent<'step.finished'> => e.kind === 'step.finished')
      .filter((e) => e.data.reusedFrom !== undefined)
      .map((e) => `${e.data.step} ← ${e.data.reusedFrom}`);
    expect(reused.sort()).toEqual(
      [
        'wf2-y/map-0/explore ← wf1-x/map-0/explore',
        'wf2-y/map-1/explore ← wf1-x/map-1/explore',
        'wf2-y/key/k-a ← wf1-x/key/k-a',
        'wf2-y/key/k-b ← wf1-x/key/k-b',
        'wf2-y/plan ← wf1-x/plan',
      ].sort(),
    );
    expect(second.ok && second.value).toEqual([
      'answer to look at a',
      'answer to look at b',
      'answer to look at c',
      'answer to look at d',
      'answer to key a',
      'answer to key b',
      'answer to key c',
      'answer to key d',
      'answer to sum up',
    ]);

    // A shifted item is not the same call path (map-1 is now a); a keyed step is found wherever it
    // moves; a changed task is not the same input.
    asked.length = 0;
    const third = await runWorkflow(overItems(['z', 'a', 'b'], 'sum up again'), host, { program: 'wf3-z' });
    expect(third.ok).toBe(true);
    expect(asked.sort()).toEqual(['key z', 'look at a', 'look at b', 'look at z', 'sum up again'].sort());
  });
});
