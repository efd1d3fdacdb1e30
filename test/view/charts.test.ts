/**
 * The SVG renderers and the terminal progress block, as pure functions of a view model (built from
 * events shaped like a run's log; the charts of a real run are checked in a browser by
 * test/cli/report.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import { renderRunCharts } from '../../src/view/charts.js';
import { progressLines } from '../../src/view/progress-lines.js';
import { buildRunView } from '../../src/view/run-view.js';
import { aggregateTimeline } from '../../src/view/timeline.js';

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
const response = (step: number, tools: string[], cost = 0.01) => ({
  step,
  turn: {
    text: '',
    toolCalls: tools.map((name, i) => ({ id: `c${step}-${i}`, name, arguments: '{}' })),
    stopReason: 'tool_calls',
    usage: { input: 1000, cachedInput: 500, cacheWrite: 0, output: 50, reasoning: 0 },
    costUsd: cost,
    model: 'm',
  },
  latencyMs: 800,
  requestMessages: 1,
});

/** N agents, each doing `steps` model+tool steps of one second each, staggered. */
function run(agents: number, steps: number): StoredEvent[] {
  const events = [
    ev(
      null,
      'run.started',
      { topology: 'peers', goal: 'g', repo: '/r', base: 'HEAD', model: 'm', config: { agents } },
      T0,
    ),
  ];
  for (let a = 1; a <= agents; a += 1) {
    const name = `peer-${a}`;
    let t = T0 + a * 100;
    events.push(
      ev(
        name,
        'agent.started',
        { profile: 'peer', model: 'm', task: '', system: '', tools: [], maxSteps: 9 },
        t,
      ),
    );
    for (let s = 1; s <= steps + (a === 2 ? 2 : 0); s += 1) {
      t += 1000;
      events.push(ev(name, 'model.response', response(s, ['bash']), t));
      events.push(ev(name, 'tool.started', { step: s, callId: `c${s}-0`, name: 'bash', arguments: '{}' }, t));
      t += 500;
      events.push(
        ev(
          name,
          'tool.finished',
          {
            step: s,
            callId: `c${s}-0`,
            name: 'bash',
            isError: false,
            content: '',
            summary: 'bash ok',
            durationMs: 500,
          },
          t,
        ),
      );
    }
    events.push(ev(name, 'merge.requested', { mr: a, branch: `agent/${name}`, commit: 'c', note: '' }, t));
    events.push(
      ev(
        name,
        a % 3 === 0 ? 'merge.rejected' : 'merge.landed',
        a % 3 === 0
          ? { mr: a, reason: 'conflict', files: [], output: '' }
          : { mr: a, commit: 'd', mainBefore: 'e', batch: [a] },
        t + 200,
      ),
    );
    events.push(
      ev(
        name,
        'agent.finished',
        { status: 'done', stopReason: 'answered', reason: 'final answer', steps, finalText: '' },
        t + 300,
      ),
    );
  }
  events.sort((x, y) => Date.parse(x.ts) - Date.parse(y.ts));
  events.push(
    ev(
      null,
      'run.finished',
      { status: 'succeeded', reason: 'ok', resultBranch: null },
      Date.parse(events[events.length - 1]?.ts ?? '') + 10,
    ),
  );
  return events;
}

describe('charts', () => {
  it('draws one lane per agent with the critical path highlighted, and the usage and merge charts', () => {
    const view = buildRunView(run(4, 3));
    const charts = renderRunCharts(view);
    expect(charts.timeline).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(charts.timeline.match(/data-bar="model"/g)?.length).toBe(3 * 4 + 2);
    expect(charts.timeline.match(/data-bar="tool"/g)?.length).toBe(3 * 4 + 2);
    expect(view.criticalPath.segments.map((s) => s.agent)).toEqual(['peer-2']);
    expect(charts.timeline).toMatch(/data-critical="true"><title>peer-2: 5 steps<\/title>/);
    for (const key of ['uncached', 'cached', 'output'])
      expect(charts.tokens).toContain(`data-series="${key}"`);
    expect(charts.cost).toContain('data-series="cost"');
    expect(charts.cost).toContain('total $0.14');
    expect(charts.merges).toContain('landed (3)');
    expect(charts.merges).toContain('rejected (1)');
    for (const svg of Object.values(charts))
      expect(svg).not.toMatch(/https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
  });

  it("labels the merges chart's y-axis with whole numbers, each once", () => {
    // The y-axis labels are the chart's right-aligned texts.
    const yLabels = (svg: string) => [...svg.matchAll(/text-anchor="end"[^>]*>([^<]*)</g)].map((m) => m[1]);
    for (const agents of [1, 2, 4, 7]) {
      const labels = yLabels(renderRunCharts(buildRunView(run(agents, 1))).merges);
      expect(labels.length, `${agents} agents`).toBeGreaterThanOrEqual(2);
      expect(new Set(labels).size, labels.join(', ')).toBe(labels.length);
      for (const label of labels) expect(label).toMatch(/^\d+$/);
    }
  });

  it('aggregates 1,000 agents into one activity chart instead of 1,000 rows', () => {
    const view = buildRunView(run(1000, 2));
    const svg = renderRunCharts(view).timeline;
    expect(svg).toContain('Timeline of 1000 agents (aggregated');
    expect(svg.match(/<rect/g)?.length ?? 0).toBeLessThan(600);
    const agg = aggregateTimeline(view.lanes, view.startMs ?? 0, view.endMs ?? 0, 50);
    // Time-weighted: every agent spends 2 × 0.8 s in model calls; the buckets add up to that.
    const modelSeconds = agg.buckets.reduce((sum, b) => sum + b.model * agg.bucketMs, 0) / 1000;
    expect(modelSeconds).toBeCloseTo(1000 * 2 * 0.8 + 0.8 * 2, 0);
  });

  it('escapes text from the log', () => {
    const events = run(1, 1);
    events.splice(
      1,
      0,
      ev(
        '<b>&x',
        'agent.started',
        { profile: 'p', model: 'm', task: '', system: '', tools: [], maxSteps: 1 },
        T0 + 1,
      ),
    );
    events.splice(2, 0, ev('<b>&x', 'model.response', response(1, []), T0 + 900));
    const svg = renderRunCharts(buildRunView(events)).timeline;
    expect(svg).toContain('&lt;b&gt;&amp;x');
    expect(svg).not.toContain('<b>');
  });
});

describe('progressLines', () => {
  it('shows agents by state, steps, merges, cost and elapsed, cut to the terminal width', () => {
    const events = run(3, 2).filter(
      (e) => e.kind !== 'run.finished' && !(e.agent === 'peer-3' && e.kind === 'agent.finished'),
    );
    const view = buildRunView(events, Date.parse(events[events.length - 1]?.ts ?? '') + 2000);
    const lines = progressLines(view, { columns: 200 });
    expect(lines[0]).toMatch(/^running · \d+\.\d s · 3 agent\(s\): 1 thinking · 2 done$/);
    expect(lines[1]).toMatch(
      /^steps 8 · tools 8 · merges 2 landed, 1 rejected, 0 queued · cost \$0\.08 · tokens 8\.0k in \+ 4\.0k cached \+ 0 cache writes \+ 400 out$/,
    );
    expect(lines[2]).toMatch(/^ {2}peer-3 thinking {3}2 steps/);
    expect(progressLines(view, { columns: 30 }).every((l) => l.length <= 30)).toBe(true);
    const few = progressLines(view, { columns: 200, maxAgents: 1 });
    expect(few[few.length - 1]).toBe('  … 2 more agent(s)');
  });
});
