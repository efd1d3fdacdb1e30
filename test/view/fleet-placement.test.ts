/**
 * Fleet runs in the view: each agent shows the worker that took its session last (agent.placed), a
 * takeover after a lost worker replaces it, and a lost worker's unfinished agents say so — in the
 * view model, the dashboard's agent rows and the terminal progress alike.
 */
import { describe, expect, it } from 'vitest';
import type { EventKind, EventPayloads, StoredEvent } from '../../src/core/events.js';
import { toCompactView } from '../../src/view/compact-view.js';
import { progressLines } from '../../src/view/progress-lines.js';
import { applyEvent, emptyRunState, type RunState } from '../../src/view/run-state.js';
import { toRunView } from '../../src/view/run-view.js';

function folder() {
  const state = emptyRunState();
  let seq = 0;
  const add = <K extends EventKind>(agent: string | null, kind: K, data: EventPayloads[K]) => {
    seq += 1;
    applyEvent(state, {
      runId: 'r',
      seq,
      ts: new Date(10_000 + seq * 10).toISOString(),
      agent,
      kind,
      data,
      hash: '',
    } as unknown as StoredEvent);
  };
  return { state, add };
}

const agentIn = (state: RunState, name: string) => toRunView(state).agents.find((a) => a.name === name);
const rowIn = (state: RunState, name: string) =>
  toCompactView(state, Date.now()).agents.find((a) => a.name === name);

const started = { profile: 'peer', model: 'm', task: 't', system: 's', tools: [], maxSteps: 10 };

describe('agent.placed and worker.lost in the view', () => {
  it('shows the latest worker per agent; a takeover replaces it', () => {
    const { state, add } = folder();
    add(null, 'run.started', {
      topology: 'peers',
      goal: 'g',
      repo: '/r',
      base: 'x',
      model: 'm',
      config: { agents: 3 },
    });
    add('peer-1', 'agent.placed', { worker: 'w1', host: 'h1', epoch: 1, session: 's', takeover: false });
    // Placed, not started: still queued, with its worker.
    expect(agentIn(state, 'peer-1')).toMatchObject({
      worker: 'w1',
      placements: 1,
      state: 'queued',
      lastAction: 'placed on worker w1 (epoch 1)',
    });
    add('peer-1', 'agent.started', started);
    add('peer-2', 'agent.placed', { worker: 'w2', host: 'h2', epoch: 1, session: 's', takeover: false });
    add('peer-2', 'agent.started', started);
    add('peer-2', 'agent.finished', {
      status: 'done',
      stopReason: 'answered',
      reason: '',
      steps: 0,
      finalText: '',
    });
    expect(rowIn(state, 'peer-1')?.worker).toBe('w1');
    expect(rowIn(state, 'peer-2')?.worker).toBe('w2');
    // Configured but never placed: no worker.
    expect(agentIn(state, 'peer-3')).toMatchObject({ worker: null, placements: 0 });
    expect(rowIn(state, 'peer-3')?.worker).toBeNull();

    add(null, 'worker.lost', { worker: 'w1', silentMs: 15_000, reenqueued: 1, by: 'w2' });
    const lost = agentIn(state, 'peer-1');
    expect(lost?.worker).toBe('w1');
    expect(lost?.lastAction).toBe('worker w1 lost (silent 15000 ms): waiting for another worker');
    // Another worker's agent is not touched.
    expect(agentIn(state, 'peer-2')?.lastAction).toMatch(/^finished \(done\)/);

    add('peer-1', 'agent.placed', { worker: 'w2', host: 'h2', epoch: 2, session: 's', takeover: true });
    expect(agentIn(state, 'peer-1')).toMatchObject({
      worker: 'w2',
      placements: 2,
      state: 'thinking',
      lastAction: 'taken over by worker w2 (epoch 2)',
    });
    expect(rowIn(state, 'peer-1')?.worker).toBe('w2');
    const line = progressLines(toRunView(state), { columns: 200 }).find((l) => l.includes('peer-1'));
    expect(line).toMatch(/^ {2}peer-1 thinking {3}0 steps on w2 {2}taken over by worker w2/);
  });

  it('leaves a finished agent of a lost worker as it was', () => {
    const { state, add } = folder();
    add('solo', 'agent.placed', { worker: 'w1', host: 'h1', epoch: 1, session: 's', takeover: false });
    add('solo', 'agent.started', started);
    add('solo', 'agent.finished', {
      status: 'done',
      stopReason: 'answered',
      reason: 'ok',
      steps: 1,
      finalText: '',
    });
    add(null, 'worker.lost', { worker: 'w1', silentMs: 9000, reenqueued: 0, by: 'w9' });
    expect(agentIn(state, 'solo')).toMatchObject({ worker: 'w1', state: 'done' });
    expect(agentIn(state, 'solo')?.lastAction).toBe('finished (done): ok');
  });
});
