/**
 * What a comparison means, in plain words: significant or not (Holm-adjusted), how large, how sure,
 * and — when not significant — the smallest difference this sample could have detected, so "no
 * difference" is never read as "no effect".
 */
import { pp, ppRange, pValue, times } from './format.js';
import type { Comparison } from './summary-types.js';

const TEST_NAMES = {
  'mcnemar-exact': 'exact McNemar',
  'sign-flip-exact': 'exact sign-flip permutation',
  'sign-flip-monte-carlo': 'sign-flip permutation (Monte Carlo)',
} as const;

/** `label` shows an arm's name as the report does (a simulated arm says so). */
export function verdictText(
  comparison: Omit<Comparison, 'verdict'>,
  confidence: number,
  alpha: number,
  label: (name: string) => string = (name) => name,
): string {
  const c = { ...comparison, arm: label(comparison.arm), baseline: label(comparison.baseline) };
  if (c.pairedTasks === 0)
    return `${c.arm}: no task was graded in both ${c.arm} and ${c.baseline}, so they cannot be compared.`;
  const level = `${Math.round(confidence * 100)}% CI`;
  const stats = `${level} ${ppRange(c.ci)}; ${TEST_NAMES[c.test]} p ${pValue(c.p)}, Holm-adjusted p ${pValue(c.pHolm)}`;
  const tasks = `${c.pairedTasks} paired task${c.pairedTasks === 1 ? '' : 's'}`;
  let text: string;
  if (c.significant && c.diff !== null) {
    const better = c.diff > 0;
    text = `${c.arm} passed ${pp(Math.abs(c.diff)).replace('+', '')} ${better ? 'more' : 'fewer'} tasks than ${c.baseline} on ${tasks} (${stats}): a significant ${better ? 'improvement' : 'loss'} at alpha ${alpha}.`;
  } else {
    const mde =
      c.mde === null
        ? 'too few tasks to say how large a difference it could detect'
        : `the smallest difference this sample could detect is ±${(c.mde * 100).toFixed(1)} pp${c.mdeFloored ? ' (no task differed; assuming one had)' : ''}`;
    text = `${c.arm}: no significant difference from ${c.baseline} at this sample size (${pp(c.diff)} on ${tasks}, ${stats}); ${mde}.`;
  }
  if (c.costRatio !== null || c.wallRatio !== null)
    text += ` It cost ${times(c.costRatio)} as much per trial and took ${times(c.wallRatio)} the median wall-clock.`;
  if (c.unpairedTasks > 0)
    text += ` ${c.unpairedTasks} task${c.unpairedTasks === 1 ? '' : 's'} graded in only one of the two ${c.unpairedTasks === 1 ? 'was' : 'were'} left out.`;
  return text;
}
