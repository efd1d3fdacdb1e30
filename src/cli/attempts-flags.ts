/**
 * `colony run --attempts N [--attempts-concurrency K] [--judge CMD]` (docs/attempts.md): the flags
 * checked, and the hidden `--attempt-of GROUP:K/N` the coordinator gives each attempt's run.
 */
import { MAX_ATTEMPTS, parseAttemptFlag } from '../attempts/index.js';
import type { RunAttempt } from '../run/run-spec.js';
import { UsageError } from './args.js';

export const ATTEMPTS_HELP = `  --attempts N         solo, orchestrated (planned): N independent attempts (1-${MAX_ATTEMPTS}), each an ordinary
                       run with its own id and branch colony/<run-id>, started from the same commit and
                       verified; the best (verify passed, then --judge score, then lower cost) is the
                       result and also gets the branch colony/<group-id>; a table compares them; with
                       --push only the winner is published (docs/attempts.md)
  --attempts-concurrency K  most attempts running at once (default: N, at most the CPUs)
  --judge CMD          with --attempts: run in a fresh checkout of each attempt's result (in the run's
                       sandbox, after --setup) and print a number; higher wins. One that fails or
                       prints no number scores none (ranked after numbers), with the reason shown`;

export const ATTEMPTS_OPTIONS = {
  attempts: { type: 'string' },
  'attempts-concurrency': { type: 'string' },
  judge: { type: 'string' },
  // Not in the help: the coordinator passes it to each attempt's colony run.
  'attempt-of': { type: 'string' },
} as const;

export interface AttemptsSettings {
  count: number;
  concurrency: number;
  judge: string | null;
}

interface AttemptsValues {
  attempts?: string;
  'attempts-concurrency'?: string;
  judge?: string;
  'attempt-of'?: string;
  'run-id'?: string;
}

/** The --attempts flags (null without --attempts); usage errors for anything out of place. */
export function attemptsFlags(values: AttemptsValues, cpus: number): AttemptsSettings | null {
  const text = values.attempts;
  if (text === undefined) {
    if (values['attempts-concurrency'] !== undefined || values.judge !== undefined)
      throw new UsageError('run: --attempts-concurrency and --judge need --attempts N');
    return null;
  }
  const count = Number(text.trim());
  if (text.trim() === '' || !Number.isInteger(count) || count < 1 || count > MAX_ATTEMPTS)
    throw new UsageError(`run: --attempts must be a whole number from 1 to ${MAX_ATTEMPTS}, got "${text}"`);
  if (values['run-id'] !== undefined)
    throw new UsageError(
      'run: --run-id and --attempts do not go together (each attempt is a run of its own)',
    );
  if (values['attempt-of'] !== undefined) throw new UsageError('run: --attempt-of and --attempts contradict');
  const k = values['attempts-concurrency'];
  let concurrency = Math.max(1, Math.min(count, cpus));
  if (k !== undefined) {
    const parsed = Number(k.trim());
    if (k.trim() === '' || !Number.isInteger(parsed) || parsed < 1)
      throw new UsageError(`run: --attempts-concurrency must be a positive whole number, got "${k}"`);
    concurrency = Math.min(parsed, count);
  }
  const judge = values.judge ?? null;
  if (judge !== null && judge.trim() === '') throw new UsageError('run: --judge must not be empty');
  return { count, concurrency, judge };
}

/** The hidden --attempt-of (needs --run-id: the coordinator chose the id). */
export function attemptOfFlag(values: AttemptsValues): RunAttempt | undefined {
  const text = values['attempt-of'];
  if (text === undefined) return undefined;
  const attempt = parseAttemptFlag(text);
  if (!attempt) throw new UsageError(`run: --attempt-of must be GROUP:K/N, got "${text}"`);
  if (values['run-id'] === undefined) throw new UsageError('run: --attempt-of needs --run-id');
  return attempt;
}

/** Refuses --attempts with what it does not go with (peers, --workers). */
export function checkAttemptsTopology(topology: string, workers: boolean): void {
  if (topology === 'peers')
    throw new UsageError(
      'run: --attempts goes with --topology solo or orchestrated (planned), not peers (peers already race on one goal; run the attempts as separate runs)',
    );
  if (workers)
    throw new UsageError('run: --attempts does not go with --workers (attempts run on this machine)');
}
