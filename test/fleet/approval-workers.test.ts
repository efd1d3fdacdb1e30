/**
 * `--approve-merges` on a fleet run: an agent on a worker asks to merge, the owner's queue verifies the
 * request and parks it, and it lands only once a person approved it (`colony approve`, from another
 * process) — across a `kill -9` of the owner and `colony resume`, as the rest of the fleet path.
 * - peers: merge_request answers at once that a person approves it; the peers finish; the owner dies
 *   with both requests parked; the person approves; the resumed owner lands them.
 * - orchestrated: the subagent's merge_request on the worker waits for the decision; the owner dies
 *   while it waits; the resumed owner takes the request up again (the worker sends it again) and
 *   parks it; approved, it lands and the waiting merge_request answers with the landing.
 */
import { execFileSync, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { COLONY_BIN, colony, fakeModelFlags, lastJsonLine } from '../helpers/cli.js';
import { fleetFixture, type LoggedEvent, runEvents, until } from './fleet-harness.js';
import { fleetOrchestratedPolicy, isOrchestratedRequest } from './fleet-orchestrated-policy.js';
import { fleetPeersPolicy } from './fleet-policy.js';

const peersPolicy = fleetPeersPolicy(1);
const orchestratedPolicy = fleetOrchestratedPolicy(1);
const policy: ScriptedPolicy = (request, index) =>
  isOrchestratedRequest(request) ? orchestratedPolicy(request, index) : peersPolicy(request, index);

const fleet = fleetFixture({ model: { policy } });

/** A database, one worker, a repository and the owner's environment (over this process's) for one test. */
async function fixture(name: string, files: Record<string, string>) {
  const {
    url,
    workers: [worker],
    repo,
    env,
  } = await fleet.start(name, { workers: [`w-${name}`], slots: 2, files, repoPrefix: `colony-${name}-` });
  return { url, worker, repo, env: { ...process.env, ...env } };
}

/** Starts `colony run …` in the background; resolves with the run's id once it is in the database. */
async function startOwner(url: string, env: NodeJS.ProcessEnv, args: string[]) {
  const owner = spawn(process.execPath, [COLONY_BIN, 'run', ...args], { env, stdio: 'ignore' });
  fleet.owners.push(owner);
  const closed = new Promise((resolve) => owner.on('close', resolve));
  let runId = '';
  await until(async () => {
    const res = await fleet.db.sql('SELECT run_id FROM colony.runs LIMIT 1', url.split('/').pop());
    runId = (res.rows[0]?.run_id as string | undefined) ?? '';
    return runId !== '';
  }, 'the run');
  return { owner, closed, runId };
}

const ofKind = (events: LoggedEvent[], kind: string) => events.filter((e) => e.kind === kind);

describe('colony run --workers --approve-merges', () => {
  it('peers: a verified request from a worker lands only once a person approved it, across an owner restart', async () => {
    const { url, worker, repo, env } = await fixture('approve_peers', { 'README.md': '# approve\n' });
    const { owner, closed, runId } = await startOwner(url, env, [
      '--workers',
      '--topology',
      'peers',
      '--agents',
      '2',
      '--repo',
      repo.dir,
      '--goal',
      'each peer adds its file',
      ...fakeModelFlags(fleet.fakes.model.url),
      '--verify',
      'test -f work/peer-1/1.txt && test -f work/peer-2/1.txt',
      '--merge-verify',
      'true',
      '--approve-merges',
      '--sandbox',
      'off',
    ]);
    // Both requests passed the merge check and wait; both peers finished; nothing landed.
    await until(async () => {
      const events = await runEvents(url, runId);
      return (
        ofKind(events, 'merge.awaiting_approval').length === 2 &&
        ofKind(events, 'agent.finished').length === 2
      );
    }, 'both requests parked and both peers finished');
    let events = await runEvents(url, runId);
    expect(ofKind(events, 'agent.placed').map((e) => e.data.worker)).toEqual([worker.name, worker.name]);
    expect(ofKind(events, 'merge.landed')).toEqual([]);
    // Each peer was told at once that a person approves its request (the owner's queue's mode).
    const answers = ofKind(events, 'tool.finished').filter((e) => e.data.name === 'merge_request');
    expect(answers).toHaveLength(2);
    for (const a of answers) expect(String(a.data.content)).toMatch(/waits for approval by a person/);
    expect(owner.exitCode).toBeNull();
    // The owner dies with both requests parked; the person approves meanwhile.
    owner.kill('SIGKILL');
    await closed;
    const parked = ofKind(events, 'merge.awaiting_approval').map((e) => Number(e.data.mr));
    for (const mr of parked) {
      const approved = await colony(['approve', runId, String(mr)], { env });
      expect(approved.code, approved.stderr).toBe(0);
    }
    const resumed = await colony(['resume', runId, '--json'], { env, timeoutMs: 180_000 });
    expect(resumed.code, `${resumed.stderr}\n${worker.stderr()}`).toBe(0);
    expect(lastJsonLine(resumed.stdout).status).toBe('succeeded');
    events = await runEvents(url, runId);
    expect(
      ofKind(events, 'merge.landed')
        .map((e) => e.agent)
        .sort(),
    ).toEqual(['peer-1', 'peer-2']);
    const files = execFileSync('git', ['ls-tree', '-r', '--name-only', `colony/${runId}`, 'work'], {
      cwd: repo.dir,
      encoding: 'utf8',
    });
    expect(files.trim().split('\n').sort()).toEqual(['work/peer-1/1.txt', 'work/peer-2/1.txt']);
  }, 300_000);

  it("orchestrated: the subagent's merge_request on a worker waits for the approval, across an owner restart", async () => {
    const { url, worker, repo, env } = await fixture('approve_orchestrated', { 'README.md': '# approve\n' });
    const { owner, closed, runId } = await startOwner(url, env, [
      '--workers',
      '--topology',
      'orchestrated',
      '--repo',
      repo.dir,
      '--goal',
      'the writer adds its file',
      ...fakeModelFlags(fleet.fakes.model.url),
      // Also the merge check (orchestrated has no separate one).
      '--verify',
      'test -f out/writer-1.txt',
      '--approve-merges',
      '--sandbox',
      'off',
    ]);
    await until(
      async () => ofKind(await runEvents(url, runId), 'merge.awaiting_approval').length === 1,
      'the request parked',
    );
    // The owner dies while the subagent's merge_request waits on the worker.
    owner.kill('SIGKILL');
    await closed;
    let events = await runEvents(url, runId);
    const waiting = (e: LoggedEvent) =>
      e.agent === 'writer-1' && (e.kind === 'tool.finished' || e.kind === 'tool.started');
    expect(events.filter(waiting).map((e) => [e.kind, e.data.name])).toEqual([
      ['tool.started', 'write'],
      ['tool.finished', 'write'],
      ['tool.started', 'merge_request'],
    ]);
    const resumed = spawn(process.execPath, [COLONY_BIN, 'resume', runId, '--json'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    fleet.owners.push(resumed);
    let out = '';
    let err = '';
    resumed.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    resumed.stderr?.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    const resumedClosed = new Promise<number | null>((resolve) => resumed.on('close', resolve));
    // The resumed owner's queue has the request again (the waiting worker sent it again) and parks it.
    await until(
      async () => ofKind(await runEvents(url, runId), 'merge.awaiting_approval').length === 2,
      'the request parked again by the resumed owner',
      120_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${err}\n${worker.stderr()}`);
    });
    events = await runEvents(url, runId);
    expect(ofKind(events, 'merge.landed')).toEqual([]);
    expect(ofKind(events, 'task.finished')).toEqual([]);
    const mr = Number(ofKind(events, 'merge.awaiting_approval')[0]?.data.mr);
    expect(ofKind(events, 'merge.awaiting_approval').map((e) => Number(e.data.mr))).toEqual([mr, mr]);
    const approved = await colony(['approve', runId, String(mr)], { env });
    expect(approved.code, approved.stderr).toBe(0);
    expect(await resumedClosed, `${err}\n${worker.stderr()}`).toBe(0);
    expect(lastJsonLine(out).status).toBe('succeeded');
    events = await runEvents(url, runId);
    expect(ofKind(events, 'merge.landed').map((e) => [e.agent, Number(e.data.mr)])).toEqual([
      ['writer-1', mr],
    ]);
    // The waiting merge_request answered once, with the landing; the task reached the lead.
    const answers = events.filter((e) => e.kind === 'tool.finished' && e.data.name === 'merge_request');
    expect(answers).toHaveLength(1);
    expect(String(answers[0]?.data.content)).toMatch(new RegExp(`Merge request ${mr} landed on main`));
    expect(ofKind(events, 'task.finished').map((e) => e.data.status)).toEqual(['done']);
    expect(
      execFileSync('git', ['show', `colony/${runId}:out/writer-1.txt`], { cwd: repo.dir, encoding: 'utf8' }),
    ).toBe('written by writer-1\n');
  }, 300_000);
});
