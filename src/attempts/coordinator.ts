/**
 * `colony run --attempts N`: N ordinary Colony runs at the same goal from the same base commit, each
 * a `colony run` process of its own (its own run id, log and branch colony/<run-id>, so resume,
 * report, publish and the dashboard see ordinary runs), carrying the group in its spec (`attempt`).
 * At most `concurrency` run at once (the server's run slots bound them further). When all have
 * ended, each result is judged (optional), the attempts are ranked (rank.ts), and the winner's
 * commit is also given the branch colony/<group-id> in the user's repository (create-only).
 */
import { spawn } from 'node:child_process';
import { appendFileSync, closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { newRunId } from '../core/ids.js';
import { colonyBin } from '../core/package-root.js';
import type { Sandbox } from '../sandbox/index.js';
import type { Store } from '../store/index.js';
import { type RunSummary, summarise } from '../view/summary.js';
import { git, gitError } from '../workspace/git/git.js';
import { attemptFlag } from './ids.js';
import { judgeCommit } from './judge.js';
import { type AttemptOutcome, rankAttempts } from './rank.js';

/** Forge tokens stay with the coordinator: the attempts do not publish, it does (the winner). */
const NOT_PASSED_ENV = ['GITHUB_TOKEN', 'GITLAB_TOKEN', 'GITEA_TOKEN'];

export interface AttemptsRequest {
  store: Store;
  group: string;
  count: number;
  concurrency: number;
  /** The user's repository (its top level) and the commit every attempt starts from. */
  repo: string;
  baseCommit: string;
  goal: string;
  /** The other `colony run` flags, passed on to each attempt as given. */
  runArgs: readonly string[];
  judge: string | null;
  /** The run's setup (run before the judge) and sandbox (the judge runs in it). */
  setup?: string;
  sandbox: Sandbox | null;
  env: NodeJS.ProcessEnv;
  onStarted?: (index: number, runId: string) => void;
  onEnded?: (outcome: AttemptOutcome) => void;
}

export interface WinnerBranch {
  branch: string;
  /** False when the branch was already there (at this commit, or another: then `error`). */
  created: boolean;
  error: string | null;
}

export interface AttemptsResult {
  ranked: AttemptOutcome[];
  winner: AttemptOutcome | null;
  winnerSummary: RunSummary | null;
  winnerBranch: WinnerBranch | null;
}

export async function runAttempts(request: AttemptsRequest): Promise<AttemptsResult> {
  const folder = path.join(request.store.home, 'attempts', request.group);
  mkdirSync(folder, { recursive: true });
  const runIds = Array.from({ length: request.count }, () => newRunId());
  const summaries = new Map<string, RunSummary>();
  const outcomes: AttemptOutcome[] = [];
  let next = 0;
  const worker = async () => {
    while (next < runIds.length) {
      const index = ++next;
      const runId = runIds[index - 1] as string;
      request.onStarted?.(index, runId);
      const { code, tail } = await runAttemptProcess(request, index, runId, folder);
      const outcome = await outcomeOf(request.store, index, runId, code, tail, summaries);
      outcomes.push(outcome);
      request.onEnded?.(outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(request.concurrency, request.count) }, worker));
  if (request.judge !== null) {
    const judge = request.judge;
    for (const outcome of outcomes)
      if (outcome.commit !== null)
        outcome.judge = await judgeCommit({
          judge,
          repo: request.repo,
          commit: outcome.commit,
          ...(request.setup ? { setup: request.setup } : {}),
          sandbox: request.sandbox,
          env: request.env,
        });
  }
  const { ranked, winner } = rankAttempts(outcomes);
  const winnerBranch =
    winner?.commit != null ? await markWinner(request.repo, request.group, winner.commit) : null;
  return {
    ranked,
    winner,
    winnerSummary: winner ? (summaries.get(winner.runId) ?? null) : null,
    winnerBranch,
  };
}

/** One attempt's `colony run`, its output in `<folder>/<run-id>.log`; its exit code and last lines. */
function runAttemptProcess(
  request: AttemptsRequest,
  index: number,
  runId: string,
  folder: string,
): Promise<{ code: number | null; tail: string }> {
  const file = path.join(folder, `${runId}.log`);
  const output = openSync(file, 'a');
  const env = { ...request.env };
  for (const name of NOT_PASSED_ENV) delete env[name];
  const tail = () => {
    try {
      return readFileSync(file, 'utf8').trim().split('\n').slice(-3).join('\n');
    } catch {
      return '';
    }
  };
  return new Promise((resolve) => {
    try {
      const child = spawn(
        process.execPath,
        [
          colonyBin(),
          'run',
          '--run-id',
          runId,
          '--attempt-of',
          attemptFlag({ group: request.group, index, of: request.count }),
          '--repo',
          request.repo,
          `--goal=${request.goal}`,
          `--base=${request.baseCommit}`,
          '--json',
          ...request.runArgs,
        ],
        { env, stdio: ['ignore', output, output] },
      );
      // A process that cannot be started ends the attempt at once, the reason in its output file.
      child.once('error', (error) => {
        appendFileSync(file, `colony run --attempts: cannot start colony run: ${error.message}\n`);
        resolve({ code: null, tail: tail() });
      });
      child.once('close', (code) => resolve({ code, tail: tail() }));
    } catch (error) {
      writeSync(output, `colony run --attempts: cannot start colony run: ${(error as Error).message}\n`);
      resolve({ code: null, tail: tail() });
    } finally {
      closeSync(output);
    }
  });
}

async function outcomeOf(
  store: Store,
  index: number,
  runId: string,
  code: number | null,
  tail: string,
  summaries: Map<string, RunSummary>,
): Promise<AttemptOutcome> {
  const events = await store.log.read(runId);
  if (events.length === 0)
    return {
      index,
      runId,
      status: 'not started',
      reason: `colony run exited with ${code ?? 'a signal'} before starting: ${tail || '(no output)'}`,
      verify: null,
      judge: null,
      costUsd: null,
      tokens: 0,
      criticalSteps: 0,
      branch: null,
      commit: null,
    };
  const summary = summarise(runId, events);
  summaries.set(runId, summary);
  const fetched = [...events].reverse().find((e) => e.kind === 'result.fetched');
  const commit = fetched && typeof fetched.data.commit === 'string' ? fetched.data.commit : null;
  const t = summary.tokens;
  return {
    index,
    runId,
    status: summary.status,
    reason: summary.reason,
    verify: summary.verify?.passed ?? null,
    judge: null,
    costUsd: summary.costUsd,
    tokens: t.input + t.cachedInput + t.cacheWrite + t.output,
    criticalSteps: summary.criticalSteps,
    branch: summary.resultBranch !== null && commit !== null ? summary.resultBranch : null,
    commit: summary.resultBranch !== null ? commit : null,
  };
}

/**
 * colony/<group-id> at the winner's commit in the user's repository: created only (`update-ref` with
 * an empty old value fails when the branch exists), never moved; Colony's hardened git, no hooks.
 */
async function markWinner(repo: string, group: string, commit: string): Promise<WinnerBranch> {
  const branch = `colony/${group}`;
  const created = await git(['update-ref', '--no-deref', `refs/heads/${branch}`, commit, ''], {
    cwd: repo,
    userConfig: true,
  });
  if (created.ok) return { branch, created: true, error: null };
  const there = await git(['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], {
    cwd: repo,
    userConfig: true,
  });
  if (there.ok && there.stdout.trim() === commit) return { branch, created: false, error: null };
  return { branch, created: false, error: `${branch} not created (left as it is): ${gitError(created)}` };
}
