/**
 * Issue 33: `colony eval report` says which arms are SIMULATED (a `sim:` model: no model was called)
 * wherever it shows them — the answer, the arm lines and tables, the charts, the page's title — and
 * that their costs come from made-up prices; a real arm beside them is not labelled. Costs below a
 * cent keep their digits ("$0.0043 a trial", not "$0.00").
 */
import { describe, expect, it } from 'vitest';
import { renderCostParetoChart } from '../../../src/eval/report/cost-chart.js';
import { evalPage } from '../../../src/eval/report/eval-page.js';
import { renderPassRateChart } from '../../../src/eval/report/pass-rate-chart.js';
import { summarizeEval } from '../../../src/eval/report/summarize.js';
import type { ArmSummary } from '../../../src/eval/report/summary-types.js';
import { armLine } from '../../../src/eval/report/text.js';
import type { Arm, TrialRecord } from '../../../src/eval/trial-record.js';
import { record } from '../records.js';

/** Ten tasks: solo passes 2 of them, the team all 10, at fractions of a cent a trial. */
function records(team: string): TrialRecord[] {
  return Array.from({ length: 10 }, (_, i) => [
    record({ arm: 'solo', task: `t${i}`, outcome: i < 2 ? 'pass' : 'fail', costUsd: 0.0043 }),
    record({ arm: team, task: `t${i}`, outcome: 'pass', costUsd: 0.0051 }),
  ]).flat();
}

function nth(arms: readonly ArmSummary[], i: number): ArmSummary {
  const arm = arms[i];
  if (!arm) throw new Error(`no arm ${i}`);
  return arm;
}

const SIM_ARMS: Arm[] = [
  { name: 'solo', topology: 'solo', size: 1, solo: true, model: 'sim:p=0.2' },
  { name: 'peers-2', topology: 'peers', size: 2, model: 'sim:p=1' },
];

describe('simulated arms in eval report', () => {
  const summary = summarizeEval(records('peers-2'), SIM_ARMS);

  it('marks every sim: arm in the summary and leads the answer with it', () => {
    expect(summary.arms.map((a) => [a.name, a.simulated])).toEqual([
      ['solo', true],
      ['peers-2', true],
    ]);
    expect(summary.headline[0]).toMatch(/^SIMULATED: /);
    expect(summary.headline[0]).toContain('made-up prices');
    for (const line of summary.headline)
      if (/significant improvement/.test(line)) expect(line).toContain('peers-2 (simulated)');
  });

  it('prints costs under a cent with their digits, and says the prices are simulated', () => {
    const pareto = summary.headline.find((l) => l.startsWith('Cost and pass rate'));
    expect(pareto).toContain('$0.0043 a trial');
    expect(pareto).not.toContain('$0.00 a trial');
    expect(pareto).toContain('simulated prices');
    expect(armLine(nth(summary.arms, 0))).toMatch(/^solo \(simulated\): pass /);
    expect(armLine(nth(summary.arms, 0))).toContain('at simulated prices');
  });

  it('labels them on the page: title, heading, answer, comparison, arm tables and charts', () => {
    const html = evalPage(summary, '/data/eval-sim');
    expect(html).toMatch(/<title>[^<]*SIMULATED[^<]*<\/title>/);
    expect(html).toMatch(/<h1>[^<]*SIMULATED[^<]*<\/h1>/);
    expect(html).toContain('<h3>solo (simulated)</h3>');
    expect(html).toContain('<td>peers-2 (simulated)</td>');
    expect(html).toMatch(/simulated prices/);
    for (const svg of [renderPassRateChart(summary), renderCostParetoChart(summary)]) {
      expect(svg).toContain('>peers-2 (simulated)</text>');
      expect(svg).toContain('<g data-series="peers-2">');
    }
    expect(renderCostParetoChart(summary)).toContain('mean cost of a trial (simulated prices)');
  });

  it('labels only the simulated arms beside a real one', () => {
    const mixed: Arm[] = [
      { name: 'solo', topology: 'solo', size: 1, solo: true, model: 'sim:p=0.2' },
      {
        name: 'orch',
        topology: 'orchestrated',
        size: 3,
        model: 'gpt-5',
        models: { lead: 'gpt-5', subagent: 'gpt-5' },
      },
    ];
    const s = summarizeEval(records('orch'), mixed);
    expect(s.arms.map((a) => a.simulated)).toEqual([true, false]);
    expect(s.headline[0]).toMatch(/^SIMULATED: solo /);
    const verdict = s.comparisons[0]?.verdict ?? '';
    expect(verdict).toMatch(/^orch passed /);
    expect(verdict).toContain('than solo (simulated)');
    expect(armLine(nth(s.arms, 1))).not.toContain('simulated');
    const html = evalPage(s, 'dir');
    expect(html).toContain('<h3>orch</h3>');
    expect(html).not.toMatch(/<title>[^<]*SIMULATED/);
    expect(html).toMatch(/<title>[^<]*simulated/);
    // A subagent model alone makes an arm simulated too.
    const roles = summarizeEval(records('orch'), [
      mixed[0] as Arm,
      { ...(mixed[1] as Arm), models: { subagent: 'sim:p=1' } },
    ]);
    expect(roles.arms[1]?.simulated).toBe(true);
  });

  it('says nothing about simulation when no arm is simulated', () => {
    const real: Arm[] = SIM_ARMS.map((a) => ({ ...a, model: 'gpt-5' }));
    const s = summarizeEval(records('peers-2'), real);
    expect(s.arms.every((a) => !a.simulated)).toBe(true);
    expect(s.headline.join(' ')).not.toMatch(/simulated/i);
    expect(evalPage(s, 'dir')).not.toMatch(/simulated/i);
  });
});
