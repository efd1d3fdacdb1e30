/**
 * Tasks made from any JS/TS repository by mutation (`colony eval plant --repo DIR --bugs K`): candidate
 * mutants of its source files (mutants.ts), tried one at a time in a scratch copy against the repository's
 * own tests, keeping only mutants the tests kill (some test that passed before fails; a mutant that
 * makes the tests hang is not kept), one in each of K different modules. The task's start state is
 * all K mutants at once, its reference.patch their reverse, its lists the tests the combined mutation
 * fails and the tests it leaves passing.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { seededRandom } from '../../core/random.js';
import { err, ok, type Result } from '../../lang/result.js';
import { type Sandbox, setupSandbox } from '../../sandbox/index.js';
import { git, gitError } from '../../workspace/git/git.js';
import { copyTree } from './checkout.js';
import { applyMutants, describeMutant, findMutants, type Mutant } from './mutants.js';
import { commandEnv, runCommand, runVerify } from './run-verify.js';
import { REFERENCE_PATCH, TASK_FILE, TASK_FORMAT_VERSION, type TaskSpec } from './task.js';

export interface PlantOptions {
  /** The repository (a git checkout; its tracked files make the task, its working tree is tested). */
  repo: string;
  /** The task folder to write (must not exist or be empty). */
  out: string;
  /** K: bugs to plant, each in a different module. */
  bugs: number;
  /** How the repository's tests run, with machine-readable results (the task's verify). */
  verify: TaskSpec['verify'];
  setup?: string[];
  id?: string;
  /** Which candidates are tried first (default 1): the same seed plants the same bugs. */
  seed?: number;
  /** Time-out of one test run, and the task's (default 300 s). */
  timeoutS?: number;
  /** Test runs spent looking for killed mutants before giving up (default 60). */
  maxRuns?: number;
  /** Only source files under these folders (relative to the repository) are mutated. */
  include?: string[];
  /** Move the repository's test files out of the agents' repository into the hidden tests. */
  hideTests?: boolean;
  sandbox?: Sandbox | null;
  env?: NodeJS.ProcessEnv;
  /** Progress, one line each. */
  log?: (line: string) => void;
}

export interface PlantResult {
  dir: string;
  spec: TaskSpec;
  mutants: Mutant[];
  /** Test runs made, the baseline and the combined mutation included. */
  runs: number;
}

const SOURCE = /\.(?:[cm]?[jt]s|[jt]sx)$/;
const TEST_FILE = /(?:^|\/)(?:test|tests|__tests__|spec)\/|\.(?:test|spec)\.[^/]+$/;
const NOT_SOURCE =
  /(?:^|\/)(?:node_modules|dist|build|coverage)\/|\.d\.[cm]?ts$|(?:^|\/)[^/]*\.config\.[^/]+$/;
/** Tried per module before moving to the next one: a module whose mutants all survive is not waited on. */
const TRIES_PER_MODULE = 6;

export function isTestFile(file: string): boolean {
  return TEST_FILE.test(file);
}

export async function plantTask(options: PlantOptions): Promise<Result<PlantResult>> {
  let ts: typeof import('typescript');
  try {
    ts = (await import('typescript')).default;
  } catch {
    return err('planting bugs needs the typescript package (npm i typescript)');
  }
  if (!Number.isInteger(options.bugs) || options.bugs < 1) return err('bugs must be a positive integer');
  const log = options.log ?? (() => {});
  const listed = await git(['ls-files', '-z'], { cwd: options.repo });
  if (!listed.ok) return err(`${options.repo} is not a git checkout: ${gitError(listed)}`);
  const tracked = listed.stdout.split('\0').filter(Boolean);
  const include = options.include?.map((p) => `${p.replace(/\/+$/, '')}/`);
  const sources = tracked.filter(
    (f) =>
      SOURCE.test(f) &&
      !isTestFile(f) &&
      !NOT_SOURCE.test(f) &&
      (!include || include.some((p) => f.startsWith(p))),
  );
  if (sources.length < options.bugs)
    return err(`${sources.length} source files to mutate; ${options.bugs} bugs need as many modules`);

  const scratchParent = await mkdtemp(path.join(tmpdir(), 'colony-plant-'));
  const scratch = path.join(scratchParent, 'tree');
  try {
    const copied = await copyTree(options.repo, scratch);
    if (!copied.ok) return copied;
    const timeoutS = options.timeoutS ?? 300;
    const context = (sandbox: Sandbox | null) => ({
      env: commandEnv(options.env ?? process.env),
      timeoutMs: timeoutS * 1000,
      sandbox,
    });
    // The user's repository as given (no agent's change): setup has the network.
    for (const command of options.setup ?? []) {
      const record = await runCommand(command, scratch, context(setupSandbox(options.sandbox, true)));
      if (record.exitCode !== 0)
        return err(`setup \`${command}\` failed (exit ${record.exitCode}): ${record.output}`);
    }
    let runs = 0;
    const test = async () => {
      runs++;
      const run = await runVerify(options.verify, scratch, context(options.sandbox ?? null));
      if (run.record.timedOut || !run.results?.ok) return null;
      return run.results.value;
    };
    const baseline = await test();
    if (!baseline) return err(`the tests do not run, or their results cannot be read, before any mutation`);
    const passing = new Set(baseline.filter((t) => t.status === 'pass').map((t) => t.name));
    if (passing.size === 0) return err('no test passes before any mutation');
    const failing = async (): Promise<string[] | null> => {
      const results = await test();
      if (!results) return null;
      const passed = new Set(results.filter((t) => t.status === 'pass').map((t) => t.name));
      return [...passing].filter((name) => !passed.has(name));
    };
    log(`baseline: ${passing.size} tests pass`);

    const random = seededRandom(options.seed ?? 1);
    const originals = new Map<string, string>();
    const chosen: Mutant[] = [];
    const maxRuns = options.maxRuns ?? 60;
    for (const file of shuffle(sources, random)) {
      if (chosen.length === options.bugs || runs >= maxRuns) break;
      const text = await readFile(path.join(scratch, file), 'utf8');
      const candidates = shuffle(findMutants(ts, file, text), random).slice(0, TRIES_PER_MODULE);
      for (const mutant of candidates) {
        if (runs >= maxRuns) break;
        await writeFile(path.join(scratch, file), applyMutants(text, [mutant]));
        const killedBy = await failing();
        await writeFile(path.join(scratch, file), text);
        const killed = killedBy !== null && killedBy.length > 0;
        log(`${describeMutant(mutant)}: ${killed ? `killed by ${killedBy.length} tests` : 'survived'}`);
        if (killed) {
          chosen.push(mutant);
          originals.set(file, text);
          break;
        }
      }
    }
    if (chosen.length < options.bugs)
      return err(
        `found killed mutants in only ${chosen.length} of ${options.bugs} modules within ${runs} test runs`,
      );

    for (const mutant of chosen) {
      await writeFile(
        path.join(scratch, mutant.file),
        applyMutants(originals.get(mutant.file) ?? '', [mutant]),
      );
    }
    const failToPass = await failing();
    if (!failToPass || failToPass.length === 0) return err('the combined mutation fails no test');
    const spec: TaskSpec = {
      v: TASK_FORMAT_VERSION,
      id:
        options.id ??
        `plant-${path.basename(path.resolve(options.repo))}-k${options.bugs}-s${options.seed ?? 1}`,
      repo: { folder: 'repo' },
      goal: goalText(chosen, failToPass, options.hideTests ?? false),
      setup: options.setup ?? [],
      verify: options.verify,
      hidden: 'hidden',
      failToPass,
      passToPass: [...passing].filter((name) => !failToPass.includes(name)),
      timeoutS,
      tags: [
        'planted',
        'independent',
        `modules:${options.bugs}`,
        `repo:${path.basename(path.resolve(options.repo))}`,
      ],
    };
    const written = await writeTask(options, tracked, chosen, originals, spec);
    if (!written.ok) return written;
    return ok({ dir: path.resolve(options.out), spec, mutants: chosen, runs });
  } finally {
    await rm(scratchParent, { recursive: true, force: true });
  }
}

function goalText(mutants: Mutant[], failToPass: string[], hidden: boolean): string {
  const modules = mutants.map((m) => `- ${m.file}`).join('\n');
  const tests = failToPass.map((t) => `- ${t}`).join('\n');
  return [
    `${mutants.length === 1 ? 'A bug was' : `${mutants.length} bugs were`} introduced into this repository, one in each of these modules:`,
    modules,
    '',
    hidden ? 'These tests (not in your checkout) fail because of them:' : 'These tests fail because of them:',
    tests,
    '',
    'Fix the code so that every test passes again. Do not change the tests.',
  ].join('\n');
}

/** The task folder: the tracked files with the mutants in, the hidden tests, the reverse patch, task.json. */
async function writeTask(
  options: PlantOptions,
  tracked: string[],
  mutants: Mutant[],
  originals: Map<string, string>,
  spec: TaskSpec,
): Promise<Result<void>> {
  const out = path.resolve(options.out);
  const existing = await readdir(out).catch(() => []);
  if (existing.length > 0) return err(`${out} exists and is not empty`);
  const repoDir = path.join(out, 'repo');
  const hiddenDir = path.join(out, 'hidden');
  await mkdir(hiddenDir, { recursive: true });
  for (const file of tracked) {
    const into = options.hideTests && isTestFile(file) ? hiddenDir : repoDir;
    await mkdir(path.dirname(path.join(into, file)), { recursive: true });
    const original = originals.get(file);
    const mutated = mutants.filter((m) => m.file === file);
    // A tracked file deleted in the working tree is not part of the state that was tested.
    const content =
      original !== undefined
        ? applyMutants(original, mutated)
        : await readFile(path.join(options.repo, file)).catch(() => null);
    if (content !== null) await writeFile(path.join(into, file), content);
  }
  // The format wants a hidden folder; with the tests left visible it holds only this marker.
  if (!options.hideTests) await writeFile(path.join(hiddenDir, '.colony-no-hidden-tests'), '');
  const patch = await reversePatch(mutants, originals);
  if (!patch.ok) return patch;
  await writeFile(path.join(out, REFERENCE_PATCH), patch.value);
  await writeFile(path.join(out, TASK_FILE), `${JSON.stringify(spec, null, 2)}\n`);
  return ok(undefined);
}

/** The patch from the mutated files back to the originals, as `git diff` writes it. */
async function reversePatch(mutants: Mutant[], originals: Map<string, string>): Promise<Result<string>> {
  const dir = await mkdtemp(path.join(tmpdir(), 'colony-plant-patch-'));
  try {
    const write = async (pick: (file: string, text: string) => string) => {
      for (const [file, text] of originals) {
        await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
        await writeFile(path.join(dir, file), pick(file, text));
      }
    };
    await write((file, text) =>
      applyMutants(
        text,
        mutants.filter((m) => m.file === file),
      ),
    );
    for (const args of [
      ['init', '-q'],
      ['add', '-A'],
    ]) {
      const result = await git(args, { cwd: dir });
      if (!result.ok) return err(`cannot make the reference patch: ${gitError(result)}`);
    }
    await write((_, text) => text);
    const diff = await git(['diff'], { cwd: dir });
    return diff.ok ? ok(diff.stdout) : err(`cannot make the reference patch: ${gitError(diff)}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
