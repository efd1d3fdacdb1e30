/**
 * Colony's git per merge request (issue 27): the commit merge_request makes in an agent's own
 * repository (`commitChanges` with the hub's store, workspace/worktree.ts), one after another, each
 * after the agent changed one file of a checkout of `--files` files. Prints one JSON line: the mean and
 * percentiles per commit, and git processes per commit when run with a counting `git` on PATH.
 *
 * Usage: npm run bench -- agent-commit [--n 300] [--files 1000]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openAgentRepo } from '../src/workspace/agent-repo/agent-repo.js';
import { createHub } from '../src/workspace/hub/hub.js';
import { commitChanges } from '../src/workspace/worktree.js';
import { parseBenchArgs } from './lib/args.js';

const args = parseBenchArgs(process.argv.slice(2));
const n = args.number('n', 300);
const files = args.number('files', 1000);

const dir = mkdtempSync(join(tmpdir(), 'colony-bench-commit-'));
try {
  const user = join(dir, 'user');
  mkdirSync(join(user, 'src'), { recursive: true });
  for (let i = 0; i < files; i++) writeFileSync(join(user, 'src', `f${i}.txt`), `file ${i}\n`);
  const git = (cwd: string, ...a: string[]) => execFileSync('git', a, { cwd, encoding: 'utf8' }).trim();
  git(user, 'init', '-q');
  git(user, 'add', '-A');
  git(user, '-c', 'user.name=b', '-c', 'user.email=b@b', 'commit', '-qm', 'base');
  const base = git(user, 'rev-parse', 'HEAD');
  const hub = join(dir, 'hub.git');
  const created = await createHub(hub, user, base);
  if (!created.ok) throw new Error(created.error);
  const repo = {
    checkout: join(dir, 'worktrees', 'a'),
    gitDir: join(dir, 'repos', 'a.git'),
    branch: 'agent/a',
  };
  const opened = await openAgentRepo({ hubPath: hub, repo, startCommit: base });
  if (!opened.ok) throw new Error(opened.error);
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    writeFileSync(join(repo.checkout, 'src', `f${i % files}.txt`), `changed ${i}\n`);
    const started = performance.now();
    const made = await commitChanges(repo.checkout, `change ${i}`, { hub });
    times.push(performance.now() - started);
    if (!made.ok || made.status !== 'committed') throw new Error(`commit ${i}: ${JSON.stringify(made)}`);
  }
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) =>
    Math.round((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) * 100) / 100;
  const mean = Math.round((times.reduce((a, b) => a + b, 0) / times.length) * 100) / 100;
  process.stdout.write(`${JSON.stringify({ n, files, meanMs: mean, p50Ms: at(0.5), p95Ms: at(0.95) })}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
