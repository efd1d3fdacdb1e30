/**
 * A finished run to publish, made without a model: a user repository holding the run's result (two
 * landed merge requests, each a commit on the one before, `colony/<run-id>` at the last), and the run's
 * event log as a real run writes it (run.started, model calls, merge.requested/landed, verify,
 * result.fetched, run.finished) in the test Postgres. The forge's bare repository gets the user's main.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EventInput } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import { testRunId } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

export interface RunFixture {
  runId: string;
  repo: string;
  base: string;
  branch: string;
  /** The landed commits, in landing order; the last is the result. */
  landed: string[];
  resultCommit: string;
}

export function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], {
    cwd: dir,
    encoding: 'utf8',
  }).trim();
}

export async function finishedRun(
  store: Store,
  options: { verifyPassed?: boolean; goal?: string; notes?: string[] } = {},
): Promise<RunFixture> {
  const runId = testRunId('publish');
  const { dir: repo, base } = createUserRepo({
    'README.md': '# demo\n',
    'src/a.ts': 'export const a = 1;\n',
  });
  const notes = options.notes ?? ['fix the parser', 'add the changelog entry'];
  gitIn(repo, 'checkout', '-q', '-b', 'work');
  const landed: string[] = [];
  notes.forEach((note, i) => {
    writeFileSync(join(repo, `file-${i + 1}.txt`), `${note}\n`);
    gitIn(repo, 'add', '-A');
    gitIn(repo, 'commit', '-q', '-m', note);
    landed.push(gitIn(repo, 'rev-parse', 'HEAD'));
  });
  const branch = `colony/${runId}`;
  const resultCommit = landed[landed.length - 1] ?? base;
  gitIn(repo, 'branch', branch, resultCommit);
  gitIn(repo, 'checkout', '-q', 'main');
  gitIn(repo, 'branch', '-q', '-D', 'work');

  const goal = options.goal ?? 'Fix the failing parser tests';
  const created = await store.runs.createRun({
    runId,
    topology: 'peers',
    goal,
    repo,
    pid: process.pid,
    host: 'test',
  });
  if (!created.ok) throw new Error(created.error);
  const events: EventInput[] = [
    {
      runId,
      agent: null,
      kind: 'run.started',
      data: { topology: 'peers', goal, repo, base, model: 'openai-chat:fake', config: {} },
    },
  ];
  for (const [i, agent] of ['peer-1', 'peer-2'].entries()) {
    events.push({
      runId,
      agent,
      kind: 'model.response',
      data: {
        step: 1,
        turn: {
          text: 'ok',
          toolCalls: [],
          stopReason: 'end',
          usage: { input: 1000 + i, cachedInput: 500, cacheWrite: 0, output: 200, reasoning: 0 },
          costUsd: 0.0125,
          model: 'fake',
        },
        latencyMs: 1,
        requestMessages: 1,
      },
    });
  }
  let mainBefore = base;
  notes.forEach((note, i) => {
    const mr = i + 1;
    const commit = landed[i] ?? base;
    const agent = `peer-${(i % 2) + 1}`;
    events.push(
      { runId, agent, kind: 'merge.requested', data: { mr, branch: `agent/${agent}`, commit, note } },
      {
        runId,
        agent,
        kind: 'merge.landed',
        data: { mr, commit, mainBefore, batch: [mr], files: [`file-${mr}.txt`] },
      },
    );
    mainBefore = commit;
  });
  const passed = options.verifyPassed ?? true;
  events.push(
    {
      runId,
      agent: null,
      kind: 'verify.finished',
      data: { command: 'npm test', exitCode: passed ? 0 : 1, passed, output: '', durationMs: 5 },
    },
    { runId, agent: null, kind: 'result.fetched', data: { branch, commit: resultCommit, repo } },
    {
      runId,
      agent: null,
      kind: 'run.finished',
      data: {
        status: passed ? 'succeeded' : 'failed',
        reason: passed ? '' : 'verify failed',
        resultBranch: branch,
      },
    },
  );
  await store.log.appendMany(events);
  return { runId, repo, base, branch, landed, resultCommit };
}

/** Puts the user's main into a bare repository (the remote's default branch before any publish). */
export function seedRemote(repo: string, bare: string): void {
  execFileSync('git', ['push', '--quiet', bare, 'main:refs/heads/main'], { cwd: repo });
}

/** A branch's commit in a bare repository, or null. */
export function remoteBranch(bare: string, branch: string): string | null {
  try {
    return execFileSync(
      'git',
      ['--git-dir', bare, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}`],
      {
        encoding: 'utf8',
      },
    ).trim();
  } catch {
    return null;
  }
}
