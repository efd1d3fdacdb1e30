/**
 * The HTML report's token numbers include Anthropic's cache writes, which the cost includes: the
 * summary row, each agent's row and the tokens chart show them beside uncached input, cached input and
 * output. Pure: the page is built from events shaped like a run's log (a real run's page is opened in
 * Chromium by test/cli/report.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import { reportPage } from '../../src/report/report-page.js';
import { runFacts } from '../../src/report/run-metrics.js';
import { renderRunCharts } from '../../src/view/charts.js';

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

/** A solo run of two Anthropic-style calls: the first writes the prompt cache, the second reads it. */
function cachedRun(): StoredEvent[] {
  const usage = [
    { input: 12, cachedInput: 0, cacheWrite: 3000, output: 40, reasoning: undefined },
    { input: 15, cachedInput: 3000, cacheWrite: 400, output: 60, reasoning: undefined },
  ];
  return [
    ev(
      null,
      'run.started',
      { topology: 'solo', goal: 'g', repo: '/r', base: 'HEAD', model: 'claude', config: {} },
      T0,
    ),
    ev(
      'solo',
      'agent.started',
      { profile: 'coder', model: 'claude', task: 'g', system: '', tools: [], maxSteps: 9 },
      T0 + 10,
    ),
    ...usage.map((u, i) =>
      ev(
        'solo',
        'model.response',
        {
          step: i + 1,
          turn: { text: 'ok', toolCalls: [], stopReason: 'end', usage: u, costUsd: 0.01, model: 'claude' },
          latencyMs: 500,
          requestMessages: 1,
        },
        T0 + 1000 * (i + 1),
      ),
    ),
    ev(
      'solo',
      'agent.finished',
      { status: 'done', stopReason: 'answered', reason: 'final answer', steps: 2, finalText: 'ok' },
      T0 + 3000,
    ),
    ev(null, 'run.finished', { status: 'succeeded', reason: 'ok', resultBranch: null }, T0 + 3100),
  ];
}

describe('the HTML report', () => {
  it('shows cache writes in the summary, the agents table and the tokens chart', () => {
    const { facts, view } = runFacts('r', cachedRun());
    const charts = renderRunCharts(view);
    const html = reportPage(view, facts, charts);
    // 27 uncached, 3,000 cached, 3,400 cache writes, 100 output.
    expect(html).toContain('tokens uncached / cached input / cache writes / output');
    expect(html).toMatch(/27 \/ 3\.0k \/ 3\.4k \/ 100/);
    expect(html).toContain('tokens unc/cached/writes/out');
    expect(charts.tokens).toContain('data-series="cacheWrite"');
    expect(charts.tokens).toContain('cache writes');
  });
});
