/**
 * The HTML page of `colony eval report`: every chart is there and drawn from the data, the text says
 * what the numbers mean, and the page is self-contained (checked in a real Chromium with every
 * network request blocked, like colony report's page).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { launchChromium } from '../../../bench/lib/chromium.js';
import { renderCostParetoChart } from '../../../src/eval/report/cost-chart.js';
import { evalPage } from '../../../src/eval/report/eval-page.js';
import { renderPassRateChart } from '../../../src/eval/report/pass-rate-chart.js';
import { renderSolvedChart } from '../../../src/eval/report/solved-chart.js';
import { summarizeEval } from '../../../src/eval/report/summarize.js';
import { renderWinLossChart } from '../../../src/eval/report/win-loss-chart.js';
import { simTruthFrom } from '../../../src/eval/sim/sim-population.js';
import { simArm } from '../../../src/eval/sim/sim-truth.js';
import { simArms, simulateTrials } from '../../../src/eval/sim/simulate-trials.js';
import { esc } from '../../../src/view/svg/xml.js';

const ARMS = [
  simArm('solo', 1),
  simArm('peers-4', 4),
  simArm('peers-16', 16, { coordinationSteps: 10 }),
  simArm('<b>orch</b>', 8, { topology: 'orchestrated' }),
];
const POP = {
  repos: 3,
  tasksPerRepo: 6,
  soloRates: [0.2, 0.5],
  repoShifts: [0],
  effects: { 'peers-4': [0.2], 'peers-16': [0.3], '<b>orch</b>': [0] },
};
const truth = simTruthFrom(POP, ARMS, 4, { infraErrorRate: 0.05 });
const summary = summarizeEval(simulateTrials(truth, { trials: 2, seed: 4 }), simArms(truth));

describe('eval charts', () => {
  it('pass rate vs team size: a point and an interval per arm, sizes on a log axis', () => {
    const svg = renderPassRateChart(summary);
    expect(svg).toContain('data-chart="pass-rate"');
    for (const arm of ['solo', 'peers-4', 'peers-16']) {
      expect(svg).toContain(`<g data-series="${arm}">`);
      expect(svg).toContain(`data-interval="${arm}"`);
    }
    expect(svg).toContain('(log scale)');
    expect(svg).toContain('data-series="solo-reference"');
    expect(svg).not.toContain('<b>orch</b>');
    expect(svg).toContain('&lt;b&gt;orch&lt;/b&gt;');
  });

  it('cost vs pass rate: the frontier runs through exactly the Pareto arms', () => {
    const svg = renderCostParetoChart(summary);
    const frontier = /<polyline points="([^"]+)"[^>]*data-series="pareto"/.exec(svg);
    expect(frontier).not.toBeNull();
    // A staircase: one corner per frontier arm after the first, plus the tail to the right edge.
    expect(frontier?.[1]?.split(' ')).toHaveLength(2 * summary.pareto.length);
    expect(summary.pareto.length).toBeGreaterThan(0);
  });

  it('solved over time: one step line per arm; win/loss: one cell per arm and task', () => {
    const solved = renderSolvedChart(summary);
    for (const arm of summary.arms)
      expect(solved).toContain(`stroke-width="2" data-series="${esc(arm.name)}"`);
    const matrix = renderWinLossChart(summary);
    const cells = matrix.match(/data-result="/g) ?? [];
    expect(cells).toHaveLength((summary.arms.length - 1) * summary.matrix.tasks.length);
    const wins = summary.matrix.rows.flatMap((r) => r.cells).filter((c) => c.result === 'win').length;
    expect(matrix.match(/data-result="win"/g) ?? []).toHaveLength(wins);
  });

  it('shows arm-vs-arm comparisons, the tags, the matched budget and the new intervals when there are', () => {
    const tags = Object.fromEntries(summary.matrix.tasks.map((t, i) => [t.task, [i % 2 ? 'odd' : 'even']]));
    const more = summarizeEval(
      simulateTrials(truth, { trials: 2, seed: 4 }),
      simArms(truth),
      { compare: [['peers-16', 'peers-4']], resamples: 200 },
      [],
      { budget: { usd: 3 }, tags },
    );
    const page = evalPage(more, 'dir');
    expect(page).toContain('<h3>peers-16 (simulated) vs peers-4 (simulated)</h3>');
    expect(page).toContain('Holm-adjusted across these 1 comparison(s) only');
    expect(page).toMatch(/<section id="tags">[\s\S]*<td>even<\/td>/);
    expect(page).toContain('matched budget $3.00 a trial');
    expect(page).toMatch(/k=1: [\d.]+% \([\d.]+%–[\d.]+%\)/);
    // Without them, no empty sections.
    const plain = evalPage(summary, 'dir');
    expect(plain).not.toContain('id="pairwise"');
    expect(plain).not.toContain('id="tags"');
  });

  it('says so when there is nothing to draw', () => {
    const empty = summarizeEval([], [{ name: 'solo', topology: 'solo', size: 1, solo: true }]);
    expect(renderPassRateChart(empty)).toContain('no graded trials');
    expect(renderCostParetoChart(empty)).toContain('no graded trials');
    expect(renderSolvedChart(empty)).toContain('no trial passed');
    expect(renderWinLossChart(empty)).toContain('no arm compared with a solo baseline');
  });
});

describe('evalPage', () => {
  const html = evalPage(summary, '/data/eval-1');

  it('holds the four charts, the answer, the comparisons and a table per arm', () => {
    for (const chart of ['pass-rate', 'cost-pareto', 'solved', 'win-loss'])
      expect(html).toContain(`data-chart="${chart}"`);
    for (const line of summary.headline) expect(html).toContain(esc(line));
    // The arms are simulated (sim: models), and each table says so.
    for (const arm of summary.arms) expect(html).toContain(`<h3>${esc(arm.name)} (simulated)</h3>`);
    expect(html).toContain('How to read this');
    expect(html).toMatch(
      /no significant difference from solo at this sample size|a significant (improvement|loss)/,
    );
    expect(html).toContain('infra error');
  });

  it('is self-contained: no script, link, image, frame, import or url()', () => {
    expect(html).not.toMatch(/<(script|link|img|iframe|object|embed)\b|\bsrc=|\bhref=|@import|url\(/i);
    expect(html).not.toContain('<b>orch</b>');
  });

  it('renders offline in Chromium without a single request', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'colony-eval-page-')), 'report.html');
    writeFileSync(file, html);
    const browser = await launchChromium();
    try {
      const context = await browser.newContext();
      const url = pathToFileURL(file).href;
      const others: string[] = [];
      await context.route('**/*', (route) => {
        if (route.request().url() === url) return route.continue();
        others.push(route.request().url());
        return route.abort();
      });
      const tab = await context.newPage();
      await tab.goto(url);
      expect(others).toEqual([]);
      for (const chart of ['pass-rate', 'cost-pareto', 'solved', 'win-loss']) {
        const box = await tab.locator(`svg[data-chart="${chart}"]`).boundingBox();
        expect(box?.width ?? 0, chart).toBeGreaterThan(300);
      }
    } finally {
      await browser.close();
    }
  });
});
