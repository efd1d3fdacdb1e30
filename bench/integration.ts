/**
 * Integration queue benchmark: merges per minute on the demo repository (examples/demo-repo, its
 * three modules fixed first so main is green) with its test suite (`node --test test/`) as verify.
 * N independent merge requests, each adding a different new module file, are queued at once
 * and integrated: once one at a time (batch size 1), once in batches, and once in batches with one
 * request that adds a failing test (found by bisection). Each mode uses a fresh run (its own hub).
 *
 * Usage: npm run bench -- integration [--n 20] [--batch-size 8] [--home DIR]
 * Also callable: `integrationFigures({ n, batchSize, store? })` (the coord benchmark uses it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { newRunId } from '../src/core/ids.js';
import { createDemoRepo } from '../src/demo/demo-repo.js';
import { openStore, type Store } from '../src/store/index.js';
import { createHub } from '../src/workspace/hub/hub.js';
import { IntegrationQueue, type IntegrationStats } from '../src/workspace/integration/index.js';
import { addWorktree, commitAll } from '../src/workspace/worktree.js';
import { parseBenchArgs } from './lib/args.js';

export interface IntegrationFigures {
  n: number;
  batchSize: number;
  /** Landed requests per minute, batch size 1 (target ≥ 10). */
  mergesPerMinuteSingle: number;
  /** Landed requests per minute with batches of `batchSize`. */
  mergesPerMinuteBatched: number;
  /** Same, with one request of the N breaking the test suite (found by bisection). */
  mergesPerMinuteBatchedOneBad: number;
  singleMs: number;
  batchedMs: number;
  batchedOneBadMs: number;
  verifyRunsSingle: number;
  verifyRunsBatched: number;
  verifyRunsBatchedOneBad: number;
  /** Mean duration of one `node --test test/` run, ms. */
  verifyMsMean: number;
  landedSingle: number;
  landedBatched: number;
  landedBatchedOneBad: number;
  /** Rejected requests in the one-bad mode (expected exactly 1). */
  rejectedBatchedOneBad: number;
}

const FIXES: Record<string, string> = {
  'src/parse-duration.js': `export function parseDuration(text) {
  const units = { h: 3600, m: 60, s: 1 };
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/(\\d+)([hms])/g)) total += Number(amount) * units[unit];
  return total;
}
`,
  'src/slugify.js': `export function slugify(title) {
  return title.trim().toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
}
`,
  'src/word-count.js': `export function wordCount(text) {
  return text.split(/\\s+/).filter((word) => word !== '').length;
}
`,
};

/** A good request adds a new module; the bad one adds a failing test (the suite's size stays fixed). */
function requestFile(i: number, bad: boolean): { path: string; content: string } {
  if (bad)
    return {
      path: `test/broken-${i}.test.js`,
      content: `import assert from 'node:assert/strict';
import { test } from 'node:test';

test('broken ${i}', () => assert.equal(1, 2));
`,
    };
  return {
    path: `src/extra-${i}.js`,
    content: `/** Extra module ${i}. */\nexport const extra${i} = ${i};\n`,
  };
}

/** The demo repository with its modules fixed and committed: main is green. */
function greenDemoRepo(parent: string): { repo: string; base: string } {
  const repo = createDemoRepo('demo-repo', parent);
  for (const [file, content] of Object.entries(FIXES)) writeFileSync(join(repo, file), content);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@colony.local', ...args], {
      cwd: repo,
      encoding: 'utf8',
    }).trim();
  git('commit', '-q', '-am', 'Fix the three modules');
  return { repo, base: git('rev-parse', 'HEAD') };
}

interface ModeResult {
  ms: number;
  landed: number;
  rejected: number;
  stats: IntegrationStats;
}

async function runMode(
  store: Store,
  scratch: string,
  repo: string,
  base: string,
  n: number,
  batchSize: number,
  badIndex: number | null,
): Promise<ModeResult> {
  const runId = newRunId();
  const root = mkdtempSync(join(scratch, 'mode-'));
  const hub = join(root, 'hub.git');
  const created = await createHub(hub, repo, base);
  if (!created.ok) throw new Error(created.error);
  // Agents' work is prepared outside the measured time.
  const branches: string[] = [];
  for (let i = 0; i < n; i++) {
    const wt = await addWorktree(hub, join(root, 'wt', `a${i}`), `agent/a${i}`, base);
    if (!wt.ok) throw new Error(wt.error);
    const file = requestFile(i, i === badIndex);
    writeFileSync(join(wt.path, file.path), file.content);
    const commit = await commitAll(wt.path, `add ${file.path}`);
    if (!commit.ok) throw new Error(commit.error);
    branches.push(wt.branch);
  }
  const queue = new IntegrationQueue({
    runId,
    hubPath: hub,
    workRoot: root,
    verify: 'node --test test/',
    log: store.log,
    batchSize,
    hooks: { postEntry: async () => {}, sendDirect: async () => {} },
  });
  const started = performance.now();
  const results = await Promise.all(
    branches.map((branch, i) => queue.submit({ agent: `a${i}`, branch, note: `request ${i}` })),
  );
  const ms = Math.round(performance.now() - started);
  await queue.close();
  return {
    ms,
    landed: results.filter((r) => r.status === 'landed').length,
    rejected: results.filter((r) => r.status === 'rejected').length,
    stats: queue.stats,
  };
}

export async function integrationFigures(
  options: { n?: number; batchSize?: number; store?: Store; home?: string } = {},
): Promise<IntegrationFigures> {
  const n = options.n ?? 20;
  const batchSize = options.batchSize ?? 8;
  const scratch = mkdtempSync(join(tmpdir(), 'colony-bench-integration-'));
  const store =
    options.store ?? (await openStore({ home: options.home ?? join(scratch, 'home'), quiet: true }));
  try {
    const { repo, base } = greenDemoRepo(scratch);
    const single = await runMode(store, scratch, repo, base, n, 1, null);
    const batched = await runMode(store, scratch, repo, base, n, batchSize, null);
    const oneBad = await runMode(store, scratch, repo, base, n, batchSize, Math.floor(n / 2));
    const perMinute = (r: ModeResult) => Math.round((r.landed / (r.ms / 60_000)) * 10) / 10;
    const runs = single.stats.verifyRuns + batched.stats.verifyRuns + oneBad.stats.verifyRuns;
    const verifyMs = single.stats.verifyMs + batched.stats.verifyMs + oneBad.stats.verifyMs;
    return {
      n,
      batchSize,
      mergesPerMinuteSingle: perMinute(single),
      mergesPerMinuteBatched: perMinute(batched),
      mergesPerMinuteBatchedOneBad: perMinute(oneBad),
      singleMs: single.ms,
      batchedMs: batched.ms,
      batchedOneBadMs: oneBad.ms,
      verifyRunsSingle: single.stats.verifyRuns,
      verifyRunsBatched: batched.stats.verifyRuns,
      verifyRunsBatchedOneBad: oneBad.stats.verifyRuns,
      verifyMsMean: runs > 0 ? Math.round(verifyMs / runs) : 0,
      landedSingle: single.landed,
      landedBatched: batched.landed,
      landedBatchedOneBad: oneBad.landed,
      rejectedBatchedOneBad: oneBad.rejected,
    };
  } finally {
    if (!options.store) await store.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = parseBenchArgs(process.argv.slice(2));
  const figures = await integrationFigures({
    n: args.number('n', 20),
    batchSize: args.number('batch-size', 8),
    home: args.string('home'),
  });
  process.stdout.write(`${JSON.stringify(figures)}\n`);
}
