/** The framing every `colony demo` prints around its run: the scripted-model note and where to look. */
import type { RunSummary } from '../view/summary.js';

/**
 * The note that the model is scripted but the work is real, in two lines:
 * "… but every <first>," / "      <rest> below is real."
 */
export function scriptedNote(first: string, rest: string): string[] {
  return [
    `NOTE: the model is SCRIPTED (offline, no API key): its decisions are canned, but every ${first},`,
    `      ${rest} below is real.`,
  ];
}

/** How to see what the run changed: the diff of its result branch against the user's main. */
export function resultDiffHint(repo: string, summary: RunSummary): string {
  if (!summary.resultBranch) return 'No result branch: nothing landed on main, the repository is unchanged.';
  return `Look at the result: git -C ${repo} diff main...${summary.resultBranch}`;
}
