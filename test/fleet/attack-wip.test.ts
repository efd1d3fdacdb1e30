/**
 * The attack suite on a fleet worker: a hostile scripted peer in a sandboxed `colony run --workers`
 * plants links in its own git directory for the worker's work-in-progress snapshot (taken by Colony
 * after each call that changed the checkout, and pushed to the owner) — every loose-object folder of
 * its store made a link to a host folder, and a `colony-wip-index` link to a host file. The evidence is
 * checked on the host: nothing was written into the folder or the file, and the peer's work landed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { colony, fakeModelFlags, lastJsonLine } from '../helpers/cli.js';
import { sha256Of } from '../helpers/escape-evidence.js';
import { fleetFixture, runEvents } from './fleet-harness.js';

const host = mkdtempSync(join(tmpdir(), 'colony-wip-host-'));
const hostFolder = join(host, 'folder');
const hostFile = join(host, 'bashrc');

/**
 * The peer's bash, after its last edit: it writes the objects of the snapshot Colony will take (the
 * same private-index steps), so only the snapshot's commit is new, then makes every loose-object
 * folder its store does not have yet a link to `hostFolder` — where the commit's object would go —
 * and the snapshot's index a link to `hostFile`.
 */
const PLANT = [
  'set -e',
  'echo more >> work/wip.txt',
  'gd=$(git rev-parse --absolute-git-dir)',
  'GIT_INDEX_FILE="$gd/attack-index" sh -c "git read-tree HEAD && git add --all && git write-tree"',
  'rm -f "$gd/attack-index"',
  'n=0',
  'for a in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do for b in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do',
  `  if [ ! -e "$gd/objects/$a$b" ]; then ln -s ${hostFolder} "$gd/objects/$a$b"; n=$((n+1)); fi`,
  'done; done',
  `rm -f "$gd/colony-wip-index"; ln -s ${hostFile} "$gd/colony-wip-index"`,
  'echo "planted $n links"',
].join('\n');

const hostilePeer: ScriptedPolicy = (request) => {
  const done = request.messages.filter((m) => m.role === 'tool').length;
  const usage = { input: 100, cachedInput: 0, output: 10 };
  const call = (name: string, args: Record<string, unknown>) => ({
    toolCalls: [{ name, arguments: args }],
    usage,
  });
  if (done === 0) return call('write', { path: 'work/wip.txt', content: 'work in progress\n' });
  if (done === 1) return call('bash', { command: PLANT });
  if (done === 2) return call('merge_request', { note: 'the work' });
  return { text: 'done', usage };
};

const fleet = fleetFixture({ model: { policy: hostilePeer } });
fleet.folders.push(host);

beforeAll(() => {
  mkdirSync(hostFolder);
  writeFileSync(hostFile, '# the user’s shell start-up file\n');
});

describe('a fleet worker’s work-in-progress snapshot', () => {
  it('never writes through links the agent planted in its git directory, and the work lands', async () => {
    const fileHash = sha256Of(hostFile);
    const {
      url,
      workers: [worker],
      repo,
      env,
    } = await fleet.start('attack_wip', {
      workers: ['wwip'],
      slots: 1,
      files: { 'README.md': '# wip\n', 'work/.keep': '' },
    });
    const run = await colony(
      [
        'run',
        '--workers',
        '--topology',
        'peers',
        '--agents',
        '1',
        '--repo',
        repo.dir,
        '--goal',
        'add work/wip.txt',
        ...fakeModelFlags(fleet.fakes.model.url),
        '--verify',
        'test -f work/wip.txt',
        '--merge-verify',
        'true',
        '--sandbox',
        'on',
        '--json',
      ],
      { env, timeoutMs: 180_000 },
    );
    // The host side first: whatever the run's outcome, nothing may have been written out.
    expect(readdirSync(hostFolder), 'objects were written into a host folder through a link').toEqual([]);
    expect(sha256Of(hostFile), 'the host file was written through a link').toBe(fileHash);
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}\n${worker.stderr()}`).toBe(0);
    const summary = lastJsonLine(run.stdout);
    const runId = String(summary.runId);
    const events = await runEvents(url, runId);
    expect(events.filter((e) => e.kind === 'agent.placed').map((e) => e.data.worker)).toEqual(['wwip']);
    const planted = events.find((e) => e.kind === 'tool.finished' && e.data.name === 'bash');
    expect(JSON.stringify(planted?.data)).toMatch(/planted [1-9]\d* links/);
    // The peer's work landed and is on the result branch, both edits.
    expect(events.filter((e) => e.kind === 'merge.landed').map((e) => e.agent)).toEqual(['peer-1']);
    expect(
      execFileSync('git', ['show', `colony/${runId}:work/wip.txt`], { cwd: repo.dir, encoding: 'utf8' }),
    ).toBe('work in progress\nmore\n');
  }, 240_000);
});
