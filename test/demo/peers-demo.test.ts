/**
 * `colony demo peers` end to end, as a user runs it (the built CLI in a child process): four scripted
 * peers fix the six-module example through real claims, messages, merges and tests; the run's log
 * shows the coordination (a claim conflict settled by direct message, a FAIL entry read first by
 * another peer, one PATCH per module, every merge decided).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import { colony } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';

const MODULES = ['capitalize', 'clamp', 'median', 'parse-duration', 'slugify', 'word-count'];
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const nodeTests = (cwd: string) =>
  spawnSync(process.execPath, ['--test', 'test/'], { cwd, encoding: 'utf8' });

let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store.close();
});

describe('colony demo peers', () => {
  it('four scripted peers fix six modules through claims, messages and the integration queue', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'colony-peers-demo-test-'));
    const started = performance.now();
    const result = await colony(['demo', 'peers', '--dir', parent], { timeoutMs: 240_000 });
    const wallMs = Math.round(performance.now() - started);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/the model is SCRIPTED/);
    expect(result.stdout).toMatch(/Peers demo summary/);
    expect(result.stdout).toMatch(/merges\s+6 landed, \d+ rejected/);
    expect(result.stdout).toMatch(/The same goal with a real model:\n.*--topology peers --agents 4/);

    const [folder] = readdirSync(parent);
    const repo = join(parent, folder ?? '');
    const runId = /run (r-[0-9a-z]+-[0-9a-f]{6}): succeeded/.exec(result.stdout)?.[1];
    if (!runId) throw new Error(`no succeeded run in:\n${result.stdout.slice(-2000)}`);

    // The user's repository: one commit, clean, on main, every module's test failing there.
    expect(git(repo, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(git(repo, 'status', '--porcelain')).toBe('');
    expect(git(repo, 'branch', '--show-current')).toBe('main');
    const before = nodeTests(repo);
    expect(before.status).not.toBe(0);
    expect(before.stdout).toMatch(/# fail 6/);

    // The result branch: the same tests all pass, and only the six sources changed.
    const checkout = mkdtempSync(join(tmpdir(), 'colony-peers-demo-result-'));
    execFileSync('sh', ['-c', `git -C "${repo}" archive colony/${runId} | tar -x -C "${checkout}"`]);
    const after = nodeTests(checkout);
    expect(after.stdout).toMatch(/# pass 6/);
    expect(after.status).toBe(0);
    const changed = git(repo, 'diff', '--name-only', `main...colony/${runId}`).split('\n').sort();
    expect(changed).toEqual(['CHANGELOG.md', ...MODULES.map((m) => `src/${m}.js`)]);
    // Both changelog lines survived the conflict resolution.
    const changelog = git(repo, 'show', `colony/${runId}:CHANGELOG.md`);
    // Each once, in sorted order whichever landed first (the resolution sorts the entries).
    expect(
      changelog
        .split('\n')
        .filter((line) => line.startsWith('- '))
        .map((line) => line.split(':')[0]),
    ).toEqual(['- median', '- slugify']);
    expect(changelog).not.toMatch(/<<<<<<<|>>>>>>>|^=======$/m);

    // The log.
    const events = await store.log.read(runId);
    const posted = events.filter((e) => e.kind === 'context.posted') as StoredEvent<'context.posted'>[];
    const patches = posted.filter((e) => e.data.kind === 'PATCH');
    expect(patches).toHaveLength(6);
    for (const m of MODULES)
      expect(
        patches.filter((p) => p.data.scope?.includes(`src/${m}.js`)),
        m,
      ).toHaveLength(1);
    expect(events.filter((e) => e.kind === 'claim.conflict').length).toBeGreaterThanOrEqual(1);
    // Each conflict was settled by a direct message to the holder, saying the sender yields.
    const conflicts = events.filter((e) => e.kind === 'claim.conflict') as StoredEvent<'claim.conflict'>[];
    const sent = events.filter((e) => e.kind === 'message.sent') as StoredEvent<'message.sent'>[];
    for (const c of conflicts)
      expect(
        sent.some((m) => m.agent === c.agent && m.data.to === c.data.holder && /yield/.test(m.data.text)),
      ).toBe(true);
    // Every merge request was decided: landed, or rejected with a reason.
    const requested = events.filter((e) => e.kind === 'merge.requested') as StoredEvent<'merge.requested'>[];
    const landed = events.filter((e) => e.kind === 'merge.landed') as StoredEvent<'merge.landed'>[];
    const rejected = events.filter((e) => e.kind === 'merge.rejected') as StoredEvent<'merge.rejected'>[];
    expect(landed).toHaveLength(6);
    const decided = new Set([...landed.map((e) => e.data.mr), ...rejected.map((e) => e.data.mr)]);
    for (const r of requested) expect(decided.has(r.data.mr), `MR ${r.data.mr}`).toBe(true);
    for (const r of rejected)
      expect(r.data.reason).toMatch(/^(conflict|verify_failed|nothing_to_merge|error)$/);
    // One merge was rejected for a conflict (the changelog), and its peer landed it later.
    const conflicted = rejected.filter((r) => r.data.reason === 'conflict');
    expect(conflicted.length).toBeGreaterThanOrEqual(1);
    for (const r of conflicted) expect(landed.some((l) => l.agent === r.agent && l.seq > r.seq)).toBe(true);

    // The failed attempt was posted as FAIL, and another peer's next context_read listed it first.
    const fail = posted.find((e) => e.data.kind === 'FAIL');
    if (!fail) throw new Error('no FAIL entry was posted');
    expect(fail.data.scope).toEqual(['src/median.js']);
    const nextRead = events.find(
      (e) =>
        e.seq > fail.seq &&
        e.kind === 'tool.started' &&
        e.agent !== fail.agent &&
        (e as StoredEvent<'tool.started'>).data.name === 'context_read',
    ) as StoredEvent<'tool.started'> | undefined;
    if (!nextRead) throw new Error('no other peer read the context after the FAIL entry');
    const readResult = events.find(
      (e) =>
        e.kind === 'tool.finished' &&
        (e as StoredEvent<'tool.finished'>).data.callId === nextRead.data.callId,
    ) as StoredEvent<'tool.finished'> | undefined;
    const firstEntry = readResult?.data.content.split('\n')[1] ?? '';
    expect(firstEntry).toMatch(new RegExp(`^#${fail.data.id} FAIL ${fail.agent}`));

    const finished = events.find((e) => e.kind === 'run.finished') as StoredEvent<'run.finished'>;
    expect(finished.data.status).toBe('succeeded');
    const stats = `conflicts ${conflicts.length}, messages ${sent.length}, rejected ${rejected.length}, events ${events.length}`;
    process.stderr.write(`[peers-demo] wall ${wallMs} ms; ${stats}\n`);
  }, 300_000);
});
