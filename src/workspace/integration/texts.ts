/** Texts the queue writes: commit messages, PATCH/FAIL entries, the author's message, tool results. */
import type { MergeRequestReply, RejectReason } from './types.js';

export const SUMMARY_MAX = 200;
export const OUTPUT_TAIL = 4000;

export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export function tail(text: string, max = OUTPUT_TAIL): string {
  return text.length <= max ? text : `…${text.slice(-(max - 1))}`;
}

/** The last non-empty lines of an output, for one-line summaries. */
export function lastLines(text: string, count = 3): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .slice(-count)
    .join(' | ');
}

export function landedMessage(note: string, mr: number, agent: string, agentCommit: string): string {
  return `${note.trim() || `merge request ${mr}`}\n\nColony-MR: ${mr}\nColony-Agent: ${agent}\nColony-Agent-Commit: ${agentCommit}\n`;
}

export function reasonText(reason: RejectReason): string {
  switch (reason) {
    case 'conflict':
      return 'it conflicts with main';
    case 'verify_failed':
      return 'the verify command failed on main + your change';
    case 'nothing_to_merge':
      return 'it changes nothing on main';
    case 'error':
      return 'integration failed';
    case 'review_rejected':
      return 'it was reviewed and turned down';
  }
}

export function failSummary(mr: number, reason: RejectReason, files: string[], output: string): string {
  const what = reason === 'conflict' ? `conflict in ${files.join(', ')}` : lastLines(output);
  return clip(`MR ${mr} rejected (${reason}): ${what}`, SUMMARY_MAX);
}

export function rejectionDirectMessage(
  mr: number,
  reason: RejectReason,
  files: string[],
  output: string,
): string {
  const lines = [`Your merge request ${mr} was rejected: ${reasonText(reason)}.`];
  if (files.length > 0) lines.push(`Files: ${files.join(', ')}`);
  if (reason === 'conflict')
    lines.push('Run `sync` to bring main into your branch, fix, then merge_request again.');
  if (output.trim() !== '') lines.push(`Output (tail):\n${tail(output, 1500)}`);
  return lines.join('\n');
}

/** To the author of a request that landed after merge_request had answered (approved by a person, or not waited for). */
export function landedDirectMessage(mr: number, commit: string, files: string[], approved = true): string {
  return [
    `Your merge request ${mr} ${approved ? 'was approved and landed' : 'landed'} on main as ${commit.slice(0, 10)}.`,
    files.length > 0 ? `Files: ${files.join(', ')}` : '',
  ]
    .filter((line) => line !== '')
    .join('\n');
}

/** What the merge_request tool returns to the model. */
export function resultText(result: MergeRequestReply): string {
  if (result.status === 'error') return `merge_request could not be queued: ${result.error}`;
  if (result.status === 'awaiting_approval')
    return [
      `Merge request ${result.mr} passed the merge check${result.verify ? ` (${result.verify})` : ''} and is waiting for approval: a person approves or rejects it, and it lands on main only when approved.`,
      'You need not wait: carry on with your work (do not submit the same change again). You will get a direct message when it lands or is rejected, with the reason.',
      `Your commit ${result.agentCommit} stays in the hub.`,
    ].join('\n');
  if (result.status === 'landed') {
    const others = result.batch.filter((mr) => mr !== result.mr);
    return [
      `Merge request ${result.mr} landed on main as ${result.commit}.`,
      others.length > 0 ? `Landed in one batch with ${others.join(', ')}.` : '',
      `Files: ${result.files.join(', ') || '(none)'}`,
      `Verify: ${result.verify}`,
    ]
      .filter((line) => line !== '')
      .join('\n');
  }
  const lines = [`Merge request ${result.mr} was rejected: ${reasonText(result.reason)} (${result.reason}).`];
  if (result.files.length > 0) lines.push(`Files: ${result.files.join(', ')}`);
  if (result.reason === 'conflict')
    lines.push(
      'Run `sync` (or `sync {merge: true}` to resolve the conflicts in place), fix, then merge_request again.',
    );
  if (result.output.trim() !== '') lines.push(`Output (tail):\n${tail(result.output, 3000)}`);
  lines.push(`Your branch is unchanged; your commit ${result.agentCommit} stays in the hub.`);
  return lines.join('\n');
}
