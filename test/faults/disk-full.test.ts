/**
 * A full disk in a checkout: `write`, `edit` and `bash` on a 2 MiB tmpfs filled to the last byte
 * return a clear error to the model (ENOSPC, nothing half-written, no temporary file left), an agent
 * that meets it reads the errors and ends with a clear status, and once space is freed the same
 * write succeeds.
 *
 * A small tmpfs needs a mount: as root (this machine runs tests as root) the test mounts one and runs
 * the scenario in this process, on the library in src/. Without root, and also as root for the second
 * test, a child `node` runs the same scenario (disk-full-scenario.mjs) on the built library in dist/
 * inside a user + mount namespace where it may mount a tmpfs (`unshare`, else bubblewrap's `--size`).
 * When no way works, the test fails and says why; it never skips.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Budget } from '../../src/agent/budget.js';
import { runAgent } from '../../src/agent/loop.js';
import { toolsForProfile } from '../../src/agent/profiles.js';
import { createBashTool, createEditTool, createWriteTool } from '../../src/agent/tools/index.js';
import { createScrubber } from '../../src/core/secrets.js';
import { createScriptedProvider } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { TEMP_MARKER } from '../../src/tool/atomic-write.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { type DiskFullReport, diskFullScenario } from './disk-full-scenario.mjs';

const SIZE = '2m';
const REPO = join(import.meta.dirname, '..', '..');
const SCENARIO = join(import.meta.dirname, 'disk-full-scenario.mjs');
const full = (rel: string) =>
  `could not write ${rel} (ENOSPC): no space left on device: the disk holding the worktree is full; ` +
  'nothing was written, the file is unchanged; free some space (or write less) and retry';

let store: Store;
const dirs: string[] = [];

beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'colony-disk-full-'));
  dirs.push(dir);
  return dir;
}

/** A 2 MiB tmpfs mounted here (root only): its folder and how to unmount it, or why not. */
function mountTmpfs(): { ok: true; dir: string; unmount: () => void } | { ok: false; error: string } {
  const dir = freshDir();
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SIZE}`, 'colony-disk-full', dir], { stdio: 'pipe' });
  } catch (error) {
    return {
      ok: false,
      error: `mount -t tmpfs: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`,
    };
  }
  return { ok: true, dir, unmount: () => execFileSync('umount', ['-l', dir]) };
}

/** The dist/ files the child imports, checked to exist and to be newer than their sources. */
function distModules(): Record<string, string> {
  const modules = {
    tools: 'src/agent/tools/index.js',
    loop: 'src/agent/loop.js',
    profiles: 'src/agent/profiles.js',
    model: 'src/model/index.js',
    secrets: 'src/core/secrets.js',
    budget: 'src/agent/budget.js',
  };
  const sources = readdirSync(join(REPO, 'src/agent/tools')).map((f) => `src/agent/tools/${f}`);
  for (const source of [...sources, 'src/agent/loop.ts']) {
    const built = join(REPO, 'dist', source.replace(/\.ts$/, '.js'));
    if (!existsSync(built) || statSync(built).mtimeMs < statSync(join(REPO, source)).mtimeMs) {
      throw new Error(
        `dist/ is missing or older than ${source}: run \`npm run build\` (npm test does) first`,
      );
    }
  }
  return Object.fromEntries(
    Object.entries(modules).map(([name, file]) => [name, join(REPO, 'dist', file)]),
  ) as Record<string, string>;
}

const CHILD = (m: Record<string, string>, scenario: string, dir: string) => `
const [{ createWriteTool, createEditTool, createBashTool }, { runAgent }, { toolsForProfile },
  { createScriptedProvider }, { createScrubber }, { Budget }, { diskFullScenario }] = await Promise.all(
  [${[m.tools, m.loop, m.profiles, m.model, m.secrets, m.budget, scenario].map((f) => JSON.stringify(f)).join(', ')}]
    .map((f) => import(f)));
const report = await diskFullScenario(
  { createWriteTool, createEditTool, createBashTool, toolsForProfile, createScriptedProvider, runAgent,
    createScrubber, Budget }, ${JSON.stringify(dir)});
process.stdout.write(JSON.stringify(report));
`;

/**
 * Runs the scenario in a child inside a user + mount namespace with a 2 MiB tmpfs on `dir`: with
 * `unshare` (util-linux), else with bubblewrap (`--size` before `--tmpfs`). Throws with every reason.
 */
function runInNamespace(): DiskFullReport {
  const modules = distModules();
  const dir = freshDir();
  const script = CHILD(modules, SCENARIO, dir);
  const attempts: Array<{ name: string; argv: string[] }> = [
    {
      name: 'unshare',
      argv: [
        'unshare',
        '--user',
        '--map-root-user',
        '--mount',
        'sh',
        '-c',
        `mount -t tmpfs -o size=${SIZE} colony-disk-full "$1" && exec "$2" --input-type=module -e "$3"`,
        'sh',
        dir,
        process.execPath,
        script,
      ],
    },
    {
      name: 'bwrap',
      argv: [
        'bwrap',
        '--unshare-user',
        '--uid',
        '0',
        '--dev-bind',
        '/',
        '/',
        '--size',
        String(2 * 1024 * 1024),
        '--tmpfs',
        dir,
        process.execPath,
        '--input-type=module',
        '-e',
        script,
      ],
    },
  ];
  const failures: string[] = [];
  for (const { name, argv } of attempts) {
    const [file, ...args] = argv as [string, ...string[]];
    const child = spawnSync(file, args, { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    if (child.status === 0) return JSON.parse(child.stdout) as DiskFullReport;
    failures.push(
      `${name}: ${child.error?.message ?? `exit ${child.status}: ${child.stderr.trim().slice(-2000)}`}`,
    );
  }
  throw new Error(`no way to make a small file system for this test:\n${failures.join('\n')}`);
}

function check(r: DiskFullReport): void {
  // The file system really was about 2 MiB and full.
  expect(r.filled).toBeGreaterThan(1.5 * 1024 * 1024);
  expect(r.filled).toBeLessThanOrEqual(2 * 1024 * 1024);
  expect(r.write).toEqual({ isError: true, content: full('new/deep/file.txt') });
  expect(r.overwrite).toEqual({ isError: true, content: full('keep.txt') });
  expect(r.edit).toEqual({ isError: true, content: full('keep.txt') });
  expect(r.keepWhenFull).toBe('original\n');
  expect(r.filesWhenFull.filter((f) => f.includes(TEMP_MARKER))).toEqual([]);
  // bash: the command's own error and its exit status reach the model.
  expect(r.bash.isError).toBe(false);
  expect(r.bash.content).toMatch(/No space left on device[\s\S]*\n\[exit code 1\]$/);
  expect(r.echo.content).toContain('No space left on device');
  expect(r.echo.content).not.toContain('written');
  // The loop: both errors were results the model read, and the agent ended with a clear status.
  expect(r.outcome).toMatchObject({ status: 'done', stopReason: 'answered', steps: 3 });
  const results = r.loopEvents.filter((e) => e.kind === 'tool.finished').map((e) => e.data);
  expect(results).toEqual([
    expect.objectContaining({ name: 'write', isError: true, content: full('result.txt') }),
    expect.objectContaining({
      name: 'bash',
      isError: false,
      content: expect.stringContaining('No space left'),
    }),
  ]);
  expect(r.loopEvents.at(-1)).toMatchObject({
    kind: 'agent.finished',
    data: {
      status: 'done',
      stopReason: 'answered',
      finalText: 'The disk is full; I could not write result.txt.',
    },
  });
  // Space freed: the same write goes through.
  expect(r.afterFree).toEqual({
    isError: false,
    content: 'Created new/deep/file.txt (1048576 bytes, 1 lines)',
  });
}

const LIB = {
  createWriteTool,
  createEditTool,
  createBashTool: (root: string) => createBashTool(root),
  toolsForProfile: (profile: string, root: string) => toolsForProfile(profile, root),
  createScriptedProvider: (turns: Parameters<typeof createScriptedProvider>[0] & unknown[]) =>
    createScriptedProvider(turns),
  runAgent,
  createScrubber: (secrets: string[]) => createScrubber(secrets),
  Budget,
};

describe('disk full in a checkout', () => {
  it('write, edit and bash report ENOSPC and the agent ends cleanly (tmpfs mounted here, or a namespace)', async () => {
    const mounted = mountTmpfs();
    if (!mounted.ok) {
      // Not root: the namespace is the way (and its failure, the test's).
      check(runInNamespace());
      return;
    }
    try {
      const runId = testRunId('disk-full');
      check(await diskFullScenario(LIB, mounted.dir, store.log, runId));
      // The real log holds the same story, hash chain intact.
      const events = await store.log.read(runId);
      expect(events.filter((e) => e.kind === 'tool.finished')).toHaveLength(2);
      expect(await store.log.verify(runId)).toMatchObject({ ok: true });
    } finally {
      mounted.unmount();
    }
  });

  it('the same in a user namespace, as a machine without root runs it', () => {
    check(runInNamespace());
  });
});
