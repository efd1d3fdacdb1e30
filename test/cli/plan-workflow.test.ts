/**
 * `colony plan --workflow FILE` (the built CLI): a program's w.dag plans without running it — the
 * critical path, the ranks and CriticalSteps; --json; a cycle fails with the engine's message.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { colony } from '../helpers/cli.js';

const fixture = (name: string) => join(import.meta.dirname, '..', 'workflow', 'fixtures', name);

describe('colony plan --workflow', () => {
  it('prints the DAG critical path and its CriticalSteps without running agents', async () => {
    const out = await colony(['plan', '--workflow', fixture('critical-path-dag.ts')]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toContain('1 dag(s), 8 step(s) asked for, none run');
    expect(out.stdout).toContain('critical path: a1 → a2 → a3 → a4');
    expect(out.stdout).toContain('plan: CriticalSteps 4 (a1 → a2 → a3 → a4)');
    expect(out.stdout).toMatch(/a1 {2}weight 1 · rank 4\n/);
    expect(out.stdout).toMatch(/s1 {2}weight 1 · rank 1\n/);
  });

  it('gives the plan as JSON', async () => {
    const out = await colony([
      'plan',
      '--workflow',
      fixture('engine-program.ts'),
      '--arg',
      'area=src',
      '--json',
    ]);
    expect(out.code, out.stderr).toBe(0);
    const plan = JSON.parse(out.stdout) as {
      criticalSteps: number;
      criticalPath: string[];
      dags: Array<{ nodes: Array<{ stage: string; rank: number; after: string[] }> }>;
    };
    // a → {b, c} → d: b and c tie, b is declared first.
    expect(plan.criticalSteps).toBe(3);
    expect(plan.criticalPath).toEqual(['a', 'b', 'd']);
    expect(plan.dags[0]?.nodes.map((n) => [n.stage, n.rank, n.after])).toEqual([
      ['a', 3, []],
      ['b', 2, ['a']],
      ['c', 2, ['a']],
      ['d', 1, ['b', 'c']],
    ]);
  });

  it('fails on a cycle with a clear message', async () => {
    const out = await colony(['plan', '--workflow', fixture('dag-cycle.ts')]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('dag: cycle a → b → a');
  });

  it('refuses --arg without --workflow', async () => {
    const out = await colony(['plan', 'some-run', '--arg', 'a=b']);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('--arg goes with --workflow FILE');
  });
});
