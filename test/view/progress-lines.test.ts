/**
 * The terminal progress block's token line: uncached input, cached input, prompt-cache writes and
 * output, as the report and the dashboard count them.
 */
import { describe, expect, it } from 'vitest';
import type { EventKind, EventPayloads, StoredEvent } from '../../src/core/events.js';
import type { Usage } from '../../src/model/types.js';
import { progressLines } from '../../src/view/progress-lines.js';
import { applyEvent, emptyRunState } from '../../src/view/run-state.js';
import { toRunView } from '../../src/view/run-view.js';

/** A call's usage; what the provider did not say is undefined. */
const usage = (
  input: number,
  cachedInput: number,
  cacheWrite: number | undefined,
  output: number,
): Usage => ({
  input,
  cachedInput,
  cacheWrite,
  output,
  reasoning: undefined,
});

/** The token line of a run whose one agent made calls with these usages. */
function tokenLine(usages: Usage[]): string {
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
  add(null, 'run.started', { topology: 'solo', goal: 'g', repo: '/r', base: 'x', model: 'm', config: {} });
  add('solo', 'agent.started', {
    profile: 'coder',
    model: 'm',
    task: 't',
    system: 's',
    tools: [],
    maxSteps: 9,
  });
  for (const [i, u] of usages.entries())
    add('solo', 'model.response', {
      step: i + 1,
      turn: { text: '', toolCalls: [], stopReason: 'end', usage: u, costUsd: 0.01, model: 'm' },
      latencyMs: 100,
      requestMessages: 1,
    });
  return progressLines(toRunView(state), { columns: 200 })[1] ?? '';
}

describe('progressLines tokens', () => {
  it('counts cache writes beside cached input', () => {
    const line = tokenLine([usage(1000, 4000, 1500, 100), usage(500, 0, 1000, 50)]);
    expect(line).toMatch(/ · tokens 1\.5k in \+ 4\.0k cached \+ 2\.5k cache writes \+ 150 out$/);
  });

  it('shows none as 0, as it shows no cached input (a provider that reports no cache writes)', () => {
    const line = tokenLine([usage(800, 0, undefined, 20)]);
    expect(line).toMatch(/ · tokens 800 in \+ 0 cached \+ 0 cache writes \+ 20 out$/);
  });
});
