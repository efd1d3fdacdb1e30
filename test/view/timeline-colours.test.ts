/**
 * The report and the dashboard draw one run's timeline alike: a wait (here a merge_request that was
 * refused) is amber in both, a failed call red in both, and both start at the first step rather than
 * at the run's first event. The report also says "unpriced" for an unpriced model and a 429 in words.
 */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import { reportPage } from '../../src/report/report-page.js';
import { runFacts } from '../../src/report/run-metrics.js';
import { renderRunCharts } from '../../src/view/charts.js';
import { SEG_ERROR, SEG_WAIT } from '../../src/view/compact-types.js';
import { toCompactView } from '../../src/view/compact-view.js';
import { foldEvents } from '../../src/view/run-state.js';
import { buildRunView } from '../../src/view/run-view.js';
import { COLORS } from '../../src/view/svg/palette.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');
let seq = 0;
function ev(agent: string | null, kind: string, data: unknown, atMs: number): StoredEvent {
  seq += 1;
  return {
    runId: 'r',
    agent,
    kind,
    data,
    seq,
    ts: new Date(atMs).toISOString(),
    hash: '',
    prevHash: '',
  } as StoredEvent;
}

function response(step: number, tool: string, atMs: number): StoredEvent {
  const turn = {
    text: '',
    toolCalls: [{ id: `c${step}`, name: tool, arguments: '{}' }],
    stopReason: 'tool_calls',
    usage: { input: 100, cachedInput: 0, cacheWrite: 0, output: 5, reasoning: 0 },
    costUsd: null,
    model: 'local',
  };
  return ev('peer-1', 'model.response', { step, turn, latencyMs: 1000, requestMessages: 1 }, atMs);
}

function toolRun(step: number, tool: string, fromMs: number, toMs: number, isError: boolean): StoredEvent[] {
  const callId = `c${step}`;
  return [
    ev('peer-1', 'tool.started', { step, callId, name: tool, arguments: '{}' }, fromMs),
    ev(
      'peer-1',
      'tool.finished',
      { step, callId, name: tool, isError, content: 'x', summary: 'x', durationMs: toMs - fromMs },
      toMs,
    ),
  ];
}

// The workspace takes 20 s to prepare; then a failed bash and a refused merge_request (a wait).
const events: StoredEvent[] = [
  ev(
    null,
    'run.started',
    { topology: 'peers', goal: 'g', repo: '/r', base: 'b', model: 'local', config: { agents: 1 } },
    T0,
  ),
  ev(
    'peer-1',
    'agent.started',
    { profile: 'peer', model: 'local', task: '', system: '', tools: [], maxSteps: 9 },
    T0 + 20_000,
  ),
  response(1, 'bash', T0 + 21_000),
  ...toolRun(1, 'bash', T0 + 21_000, T0 + 25_000, true),
  response(2, 'merge_request', T0 + 26_000),
  ...toolRun(2, 'merge_request', T0 + 26_000, T0 + 40_000, true),
  ev(null, 'limit.hit', { limit: 'model_concurrency', value: 2, used: 4 }, T0 + 40_500),
  ev(null, 'run.finished', { status: 'failed', reason: 'x', resultBranch: null }, T0 + 41_000),
];

describe('one timeline, two renderers', () => {
  it('colours a wait amber and a failed call red in the report', () => {
    const svg = renderRunCharts(buildRunView(events)).timeline;
    const wait = /<rect [^>]*data-wait="true"[^>]*>/.exec(svg)?.[0] ?? '';
    expect(wait).toContain(`fill="${COLORS.wait}"`);
    const failed = [...svg.matchAll(/<rect [^>]*data-bar="tool"[^>]*>/g)]
      .map((m) => m[0])
      .filter((r) => !r.includes('data-wait'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toContain(`fill="${COLORS.error}"`);
    // From the first step: the title says how long after the run's start that was.
    expect(svg).toContain('from the first step (20s after the run started)');
  });

  it('gives the dashboard the same kinds, from the first step', () => {
    const view = toCompactView(foldEvents(events), T0 + 50_000);
    const segs = view.timeline.rows.find((r) => r.agent === 'peer-1')?.segs ?? [];
    const kinds: number[] = [];
    for (let i = 2; i < segs.length; i += 3) kinds.push(segs[i] ?? -1);
    expect(kinds).toContain(SEG_ERROR);
    expect(kinds).toContain(SEG_WAIT);
    expect(segs[0]).toBe(0);
    expect(view.timeline.startMs - view.timeline.runStartMs).toBe(20_000);
    // The agent's calls had no price: null, never 0 (its row, the run, the cost series).
    expect(view.agents[0]?.costUsd).toBeNull();
    expect(view.costUsd).toBeNull();
    expect(view.series.map((p) => p.costUsd)).toEqual([null, null]);
  });

  it('says unpriced and what a 429 did in the report', () => {
    const { facts, view } = runFacts('r', events);
    const html = reportPage(view, facts, renderRunCharts(view));
    expect(html).toMatch(/<th>cost<\/th><td>unpriced<\/td>/);
    expect(html).toContain(
      'the provider asked to slow down (429 rate limit): model requests at once lowered to 2',
    );
    expect(html).toContain('CriticalSteps: model calls on the longest chain');
    // No cell shows a dollar amount (the glossary's words "never counted as $0" aside).
    expect(html).not.toMatch(/<td>\$0/);
  });
});
