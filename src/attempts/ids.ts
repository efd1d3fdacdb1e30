/**
 * Attempt groups (`colony run --attempts N`): an id like a run's (`a-<time36>-<rand>`, safe in a
 * branch name: the winner's branch is colony/<group-id>), and the hidden `--attempt-of` value the
 * coordinator passes to each attempt's `colony run` (`GROUP:K/N`).
 */
import { randomBytes } from 'node:crypto';
import type { RunAttempt } from '../run/run-spec.js';

/** Most attempts in a group. */
export const MAX_ATTEMPTS = 16;

export function newAttemptGroupId(now = Date.now()): string {
  return `a-${now.toString(36)}-${randomBytes(3).toString('hex')}`;
}

export function isAttemptGroupId(text: string): boolean {
  return /^a-[0-9a-z]{1,12}-[0-9a-f]{6}$/.test(text);
}

export function attemptFlag(attempt: RunAttempt): string {
  return `${attempt.group}:${attempt.index}/${attempt.of}`;
}

/** `GROUP:K/N` as a RunAttempt, or null when it is not one (1 ≤ K ≤ N ≤ MAX_ATTEMPTS). */
export function parseAttemptFlag(text: string): RunAttempt | null {
  const match = /^(a-[0-9a-z]{1,12}-[0-9a-f]{6}):([0-9]{1,2})\/([0-9]{1,2})$/.exec(text);
  if (!match) return null;
  const [, group = '', k = '', n = ''] = match;
  const index = Number(k);
  const of = Number(n);
  if (index < 1 || index > of || of > MAX_ATTEMPTS) return null;
  return { group, index, of };
}
