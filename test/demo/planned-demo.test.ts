/**
 * `colony demo planned` through the built CLI: the scripted lead's program reviews the demo
 * repository's folders, fixes the three findings through the integration queue, and the run succeeds
 * with verify passing; the fixes are on the result branch and CriticalSteps counts the program's steps.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import { computeMetrics } from '../../src/view/metrics.js';
import { ensureBuilt } from '../durability/harness.js';
import { colony } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

let store: Store;
beforeAll(async () => {
  await ensureBuilt();
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});

describe('colony demo planned', () => {
  it("runs the lead's program: a review mapped over the folders, fixes landed, verify passing", async () => {
    const parent = mkdtempSync(join(tmpdir(), 'colony-demo-test-'));
    const result = await colony(['demo', 'planned', '--dir', parent]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/SCRIPTED/);
    expect(result.stdout).toMatch(/npx colony run --topology planned --repo /);
    const [folder] = readdirSync(parent);
    expect(folder).toMatch(/^colony-demo-planned-/);
    const repo = join(parent, folder ?? '');
    const runId = /run (r-[0-9a-z]+-[0-9a-f]{6}): succeeded/.exec(result.stdout)?.[1];
    if (!runId) throw new Error(`no succeeded run in:\n${result.stdout}`);

    const events = await store.log.read(runId);
    const of = <K extends StoredEvent['kind']>(kind: K) =>
      events.filter((e) => e.kind === kind) as StoredEvent<K>[];
    expect(of('run.finished').map((e) => e.data.status)).toEqual(['succeeded']);
    expect(of('verify.finished').map((e) => e.data.passed)).toEqual([true]);
    // The lead delegated only by its one program: reviewers (read-only) mapped over src and test,
    // then one writer per finding; each writer's merge landed.
    const lead = of('agent.started').find((e) => e.agent === 'lead');
    expect(lead?.data.tools).toContain('run_workflow');
    expect(lead?.data.tools).not.toContain('assign_task');
    const programs = of('workflow.finished');
    expect(programs).toHaveLength(1);
    const program = programs[0]?.data.program ?? '';
    const started = of('step.started').map((e) => [e.data.step, e.data.profile]);
    expect(started).toEqual(
      expect.arrayContaining([
        [`${program}/review/map-0/review`, 'reviewer'],
        [`${program}/review/map-1/review`, 'reviewer'],
        [`${program}/fix/map-0/fix`, 'coder'],
        [`${program}/fix/map-1/fix`, 'coder'],
        [`${program}/fix/map-2/fix`, 'coder'],
      ]),
    );
    expect(started).toHaveLength(5);
    expect(of('merge.landed')).toHaveLength(3);
    expect(of('sync.finished').map((e) => e.data.passed)).toEqual([true]);

    // The fixes are on the result branch (only the sources changed), and its tests pass.
    const branch = `colony/${runId}`;
    const changed = git(repo, 'diff', '--name-only', `main...${branch}`).split('\n').sort();
    expect(changed).toEqual(['src/parse-duration.js', 'src/slugify.js', 'src/word-count.js']);
    const checkout = mkdtempSync(join(tmpdir(), 'colony-demo-result-'));
    execFileSync('sh', ['-c', `git -C "${repo}" archive ${branch} | tar -x -C "${checkout}"`]);
    const tests = spawnSync(process.execPath, ['--test', 'test/'], { cwd: checkout, encoding: 'utf8' });
    expect(tests.status, tests.stdout).toBe(0);

    // CriticalSteps counts the program's steps inside the lead's turn: turn 1 = 1 + the review stage
    // (1 + its slowest reviewer) + the fix stage (1 + its slowest writer); turn 2 (the answer) = 1.
    const steps = (prefix: string) =>
      of('agent.finished')
        .filter((e) => e.agent?.startsWith(`${program}.${prefix}.`))
        .map((e) => e.data.steps);
    const review = Math.max(...steps('review'));
    const fix = Math.max(...steps('fix'));
    expect(steps('review')).toHaveLength(2);
    expect(steps('fix')).toHaveLength(3);
    const m = computeMetrics(events);
    expect(m.leadTurns.map((t) => t.criticalSteps)).toEqual([1 + (1 + review) + (1 + fix), 1]);
    expect(m.criticalSteps).toBe(2 + (1 + review) + (1 + fix));
    expect(result.stdout).toContain(`CriticalSteps ${m.criticalSteps} `);
  }, 180_000);
});
