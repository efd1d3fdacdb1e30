import { describe, expect, it } from 'vitest';
import { discordantCounts, oneTrialEach, pairTasks } from '../../../src/eval/stats/paired.js';

describe('pairTasks', () => {
  it('pairs by task, differences of pass shares, unpaired tasks named', () => {
    const arm = [
      { task: 'a', repo: 'r1', trials: 2, passes: 2 },
      { task: 'b', repo: 'r1', trials: 4, passes: 1 },
      { task: 'c', repo: 'r2', trials: 1, passes: 1 },
      { task: 'z', repo: 'r2', trials: 0, passes: 0 },
    ];
    const solo = [
      { task: 'a', repo: 'r1', trials: 2, passes: 1 },
      { task: 'b', repo: 'r1', trials: 2, passes: 1 },
      { task: 'd', repo: 'r2', trials: 1, passes: 0 },
    ];
    const { pairs, armOnlyTasks, soloOnlyTasks } = pairTasks(arm, solo);
    expect(pairs.map((p) => [p.task, p.diff])).toEqual([
      ['a', 0.5],
      ['b', -0.25],
    ]);
    expect(armOnlyTasks).toEqual(['c']);
    expect(soloOnlyTasks).toEqual(['d']);
    expect(discordantCounts(pairs)).toEqual({ armOnly: 1, soloOnly: 1 });
    expect(oneTrialEach(pairs)).toBe(false);
  });

  it('recognises one trial per task on both sides', () => {
    const one = (task: string, passes: number) => ({ task, repo: 'r', trials: 1, passes });
    const { pairs } = pairTasks([one('a', 1), one('b', 0)], [one('a', 0), one('b', 0)]);
    expect(oneTrialEach(pairs)).toBe(true);
    expect(discordantCounts(pairs)).toEqual({ armOnly: 1, soloOnly: 0 });
  });
});
