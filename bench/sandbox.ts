/**
 * Sandbox benchmark: what bubblewrap costs per bash call. The real bash tool runs `--n` calls of
 * `--command` (default `true`) one after another in a git worktree of a small hub, once uncontained and
 * once in the sandbox (no network), and reports the mean and percentiles of each and their difference;
 * also the one-time availability probe. No database, no model.
 *
 * Usage: npm run bench -- sandbox [--n 200] [--command true] [--network]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createBashTool } from '../src/agent/tools/bash.js';
import { detectSandbox } from '../src/sandbox/detect.js';
import type { Sandbox } from '../src/sandbox/sandbox.js';
import { parseBenchArgs } from './lib/args.js';

export interface SandboxFigures {
  n: number;
  command: string;
  network: boolean;
  /** First detectSandbox() of the process: PATH lookup plus one probe sandbox (cached afterwards). */
  probeMs: number;
  plainMeanMs: number;
  plainP50Ms: number;
  plainP95Ms: number;
  sandboxMeanMs: number;
  sandboxP50Ms: number;
  sandboxP95Ms: number;
  /** sandboxMeanMs − plainMeanMs: the sandbox's cost per call. */
  overheadMeanMs: number;
  /** Every call of both modes answered `[exit code 0]`. */
  ok: boolean;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

async function timeCalls(
  worktree: string,
  sandbox: Sandbox | null,
  n: number,
  command: string,
): Promise<{ ms: number[]; ok: boolean }> {
  const tool = createBashTool(worktree, { sandbox });
  const ms: number[] = [];
  let ok = true;
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    const result = await tool.run({ command }, {});
    ms.push(performance.now() - started);
    if (result.isError || !result.content.endsWith('[exit code 0]')) ok = false;
  }
  return { ms, ok };
}

export async function sandboxFigures(options: {
  n: number;
  command: string;
  network: boolean;
}): Promise<SandboxFigures> {
  const scratch = mkdtempSync(join(tmpdir(), 'colony-bench-sandbox-'));
  try {
    // A worktree of a bare hub, as agents have (the sandbox binds the hub read-only).
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=B', '-c', 'user.email=b@b', ...args], { cwd, stdio: 'pipe' });
    const seed = join(scratch, 'seed');
    git(scratch, 'init', '-q', '-b', 'main', seed);
    writeFileSync(join(seed, 'a.txt'), 'a\n');
    git(seed, 'add', '-A');
    git(seed, 'commit', '-q', '-m', 'init');
    git(scratch, 'clone', '-q', '--bare', seed, join(scratch, 'hub.git'));
    const worktree = join(scratch, 'worktrees', 'agent');
    git(join(scratch, 'hub.git'), 'worktree', 'add', '-q', '-b', 'agent/a', worktree, 'main');

    const probeStarted = performance.now();
    const found = await detectSandbox();
    const probeMs = performance.now() - probeStarted;
    if (!found.ok) throw new Error(found.error);
    const sandbox: Sandbox = { bwrap: found.value, network: options.network, writable: true, passEnv: {} };

    // Warm both paths (page cache, bwrap's mount list) before measuring.
    await timeCalls(worktree, null, 5, options.command);
    await timeCalls(worktree, sandbox, 5, options.command);
    const plain = await timeCalls(worktree, null, options.n, options.command);
    const boxed = await timeCalls(worktree, sandbox, options.n, options.command);
    const stats = (ms: number[]) => {
      const sorted = [...ms].sort((a, b) => a - b);
      return {
        mean: ms.reduce((a, b) => a + b, 0) / ms.length,
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
      };
    };
    const p = stats(plain.ms);
    const s = stats(boxed.ms);
    return {
      n: options.n,
      command: options.command,
      network: options.network,
      probeMs: round(probeMs),
      plainMeanMs: round(p.mean),
      plainP50Ms: round(p.p50),
      plainP95Ms: round(p.p95),
      sandboxMeanMs: round(s.mean),
      sandboxP50Ms: round(s.p50),
      sandboxP95Ms: round(s.p95),
      overheadMeanMs: round(s.mean - p.mean),
      ok: plain.ok && boxed.ok,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = parseBenchArgs(process.argv.slice(2));
  const figures = await sandboxFigures({
    n: args.number('n', 200),
    command: args.string('command') ?? 'true',
    network: args.flag('network'),
  });
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}
