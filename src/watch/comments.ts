/**
 * What `colony watch` writes on an issue: that a run started (its id), and how it ended (status, the
 * pull request). Each comment ends with a marker naming the run, so a watch killed after posting and
 * before recording that it posted finds its comment and does not post it again. Text from the run
 * (its reason) is put in a code span: no mention, link or `closes #n` of an agent's reaches the forge.
 */
import { markdownCode } from '../forge/index.js';

export type CommentKind = 'started' | 'finished';

export function marker(kind: CommentKind, runId: string): string {
  return `<!-- colony-watch:${kind} ${runId} -->`;
}

export function startedComment(runId: string, topology: string): string {
  return [
    `Colony took this issue: run \`${runId}\` started (${topology}), with this issue's title and text as its goal.`,
    'It comments here again when the run ends, with the pull request.',
    '',
    marker('started', runId),
  ].join('\n');
}

export interface RunOutcome {
  status: string;
  /** Why the run ended so (from the run; shown as code). */
  reason: string;
  /** The pull request opened (or found open) for the run's result. */
  pullRequest: { url: string; draft: boolean } | null;
  /** Why there is no pull request. */
  noPullRequest: string | null;
}

export function finishedComment(runId: string, outcome: RunOutcome): string {
  const why = outcome.reason.trim() !== '' ? ` (${markdownCode(outcome.reason)})` : '';
  const lines = [`Colony run \`${runId}\` ended: **${outcome.status}**${why}.`];
  if (outcome.pullRequest)
    lines.push(
      `${outcome.pullRequest.draft ? 'Draft pull request' : 'Pull request'}: ${outcome.pullRequest.url}`,
    );
  else lines.push(`No pull request: ${outcome.noPullRequest ?? 'none was opened'}.`);
  lines.push(
    '',
    `The whole run: \`colony show ${runId}\`, \`colony report ${runId}\` on the machine that ran it.`,
  );
  lines.push('', marker('finished', runId));
  return lines.join('\n');
}
