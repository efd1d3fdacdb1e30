/**
 * The attack suite, host side: a scripted hostile agent in real sandboxed runs (executeRun, real git,
 * the embedded Postgres log, bubblewrap) plants things in its own checkout and git directory for
 * Colony's OWN code to follow — Colony's commit at the end of a solo run, merge_request and sync in a
 * peers run, the lazy checkout's fill — and the evidence is checked on the host afterwards: the files
 * a link pointed at are unchanged, no marker a filter would make exists, and the agent's work landed
 * (nothing it did is lost to the attack or to its own mistakes).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import { isKind, type StoredEvent } from '../../src/core/events.js';
import { runDir } from '../../src/core/home.js';
import { createScriptedProvider, type ScriptedPolicy } from '../../src/model/index.js';
import type { ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import { resolveHome, type Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { markerFiles, sha256Of } from '../helpers/escape-evidence.js';
import { createUserRepo } from '../helpers/user-repo.js';

const M = `colony-gitattack-${process.pid}-${Date.now().toString(36)}`;

let store: Store;
let host: string;
beforeAll(async () => {
  store = await openTestStore();
  host = mkdtempSync(path.join(tmpdir(), 'colony-host-'));
});
afterAll(async () => {
  await store?.close();
});

/** Host files a link may point at (stand-ins for ~/.bashrc and the like), with their hashes. */
function hostFiles(names: string[]): { file: (name: string) => string; unchanged: () => void } {
  const dir = path.join(host, `${names[0]}-${Math.random().toString(36).slice(2)}`);
  mkdirSync(dir);
  const hashes = new Map<string, string | null>();
  for (const name of names) {
    const file = path.join(dir, name);
    writeFileSync(file, `# the user's ${name}\n`);
    hashes.set(file, sha256Of(file));
  }
  return {
    file: (name) => path.join(dir, name),
    unchanged: () => {
      for (const [file, hash] of hashes)
        expect(sha256Of(file), `${file} was written through a link`).toBe(hash);
    },
  };
}

const bash = (command: string): ScriptedTurn => ({ toolCalls: [{ name: 'bash', arguments: { command } }] });
const tool = (name: string, args: Record<string, unknown> = {}): ScriptedTurn => ({
  toolCalls: [{ name, arguments: args }],
});

/** One turn after another, then a final answer; the tool results are kept for the checks. */
function scripted(turns: ScriptedTurn[]): ScriptedPolicy {
  return (_request, index) => turns[index] ?? { text: 'Done.' };
}

async function run(
  topology: 'solo' | 'peers',
  repo: { dir: string; base: string },
  turns: ScriptedTurn[],
): Promise<{ events: StoredEvent[]; hub: string; summary: unknown; ok: boolean; error?: string }> {
  const runId = testRunId(`gitattack-${topology}`);
  const spec: RunSpec = {
    runId,
    topology,
    repo: repo.dir,
    goal: 'Change the repository.',
    baseRef: 'HEAD',
    baseCommit: repo.base,
    model: 'scripted',
    customModels: [],
    maxSteps: turns.length + 5,
    profile: 'coder',
    stream: false,
    modelTimeoutMs: 60_000,
    maxRetries: 0,
    bashTimeoutS: 30,
    sandbox: { enabled: true, network: false, passEnv: [] },
    ...(topology === 'peers' ? { agents: 1 } : {}),
  };
  await recordNewRun(store, spec);
  const result = await executeRun({
    store,
    spec,
    provider: createScriptedProvider(scripted(turns), { latencyMs: 0 }),
    env: process.env,
    signal: new AbortController().signal,
    resumed: false,
  });
  await store.log.flush();
  const events = await store.log.read(runId);
  const hub = path.join(runDir(resolveHome(), runId), 'hub.git');
  return result.ok
    ? { events, hub, summary: result.summary, ok: true }
    : { events, hub, summary: null, ok: false, error: result.error };
}

const hubGit = (hub: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: hub, encoding: 'utf8', env: { PATH: process.env.PATH } }).trim();

/** Each path in hub main with its mode (160000: a gitlink). */
function mainTree(hub: string): Map<string, string> {
  const lines = hubGit(hub, 'ls-tree', '-r', 'main').split('\n');
  return new Map(lines.map((line) => [line.split('\t')[1] ?? '', line.split(' ')[0] ?? '']));
}

const plantLinks = (target: (name: string) => string) =>
  [
    'G=$(git rev-parse --absolute-git-dir)',
    `ln -sf ${target('bashrc')} "$G/COMMIT_EDITMSG"`,
    `rm -rf "$G/logs" && mkdir -p "$G/logs/refs/heads/agent" && ln -sf ${target('profile')} "$G/logs/HEAD"`,
    `ln -sf ${target('authorized_keys')} "$G/logs/refs/heads/agent/$(basename "$(git symbolic-ref HEAD)")"`,
    `ln -sf ${target('merge_msg')} "$G/MERGE_MSG"; ln -sf ${target('orig_head')} "$G/ORIG_HEAD"`,
    `ln -sf ${target('sparse')} "$G/info/sparse-checkout"`,
    'ls -la "$G" "$G/logs"',
  ].join('; ');

const LINK_TARGETS = ['bashrc', 'profile', 'authorized_keys', 'merge_msg', 'orig_head', 'sparse'];

describe("Colony's own git and file handling on an agent's repository, attacked by the agent", () => {
  it("solo result: links in the git directory are never written through by Colony's commit or fill", async () => {
    const target = hostFiles(LINK_TARGETS);
    const repo = createUserRepo({ 'README.md': '# r\n', 'src/a.txt': 'one\n' }, 'colony-gitattack-');
    const outcome = await run('solo', repo, [
      bash(`${plantLinks(target.file)}; echo 'echo pwned' > notes.txt`),
      tool('read', { path: 'src/a.txt' }),
      tool('edit', { path: 'src/a.txt', old: 'one', new: 'two' }),
    ]);
    expect(outcome.ok, outcome.error).toBe(true);
    target.unchanged();
    const tree = mainTree(outcome.hub);
    expect([...tree.keys()]).toEqual(expect.arrayContaining(['notes.txt', 'src/a.txt']));
    expect(hubGit(outcome.hub, 'show', 'main:src/a.txt')).toBe('two');
  }, 120_000);

  it('merge_request and sync: links in the git directory are never written through; the work lands', async () => {
    const target = hostFiles(LINK_TARGETS);
    const repo = createUserRepo({ 'README.md': '# r\n', 'src/a.txt': 'one\n' }, 'colony-gitattack-');
    const outcome = await run('peers', repo, [
      bash(`${plantLinks(target.file)}; echo 'echo pwned' > notes.txt`),
      tool('merge_request', { note: 'echo pwned >> ~/.bashrc' }),
      tool('merge_status', { mr: 1, wait: true }),
      bash('echo more > more.txt'),
      tool('sync', { merge: true }),
      tool('merge_request', { note: 'second' }),
      tool('merge_status', { mr: 2, wait: true }),
    ]);
    expect(outcome.ok, outcome.error).toBe(true);
    target.unchanged();
    const landed = outcome.events.filter(isKind('merge.landed'));
    expect(landed.length, JSON.stringify(outcome.events.filter((e) => e.kind.startsWith('merge.')))).toBe(2);
    expect([...mainTree(outcome.hub).keys()]).toEqual(expect.arrayContaining(['notes.txt', 'more.txt']));
  }, 120_000);

  it('sync with merge: true during a merge the agent made itself, behind planted links: answered, nothing written through', async () => {
    const target = hostFiles(LINK_TARGETS);
    const repo = createUserRepo({ 'README.md': '# r\n', 'src/a.txt': 'one\n' }, 'colony-gitattack-');
    // The agent leaves a real conflicted merge of its own (MERGE_HEAD, an unmerged index entry), then
    // turns every file git writes by name into a link to a host file and tries to give its repository
    // a filter and an fsmonitor (its config is Colony's, read-only in its sandbox).
    const conflicted = [
      'ID="-c user.name=a -c user.email=b"',
      'git checkout -q -b side && echo side > src/a.txt && git $ID commit -qam side',
      'git checkout -q - && echo mine > src/a.txt && git $ID commit -qam mine',
      'git $ID merge side >/dev/null 2>&1; git rev-parse --verify MERGE_HEAD',
      `git config filter.x.clean "touch /tmp/${M}-sync-clean; cat" 2>&1`,
      `git config core.fsmonitor "touch /tmp/${M}-sync-fsmonitor" 2>&1`,
      "echo '* filter=x' > .gitattributes",
    ].join('; ');
    const outcome = await run('peers', repo, [
      bash(conflicted),
      bash(plantLinks(target.file)),
      tool('sync', { merge: true }),
      tool('sync', { merge: true }),
      bash("printf 'resolved\\n' > src/a.txt && rm .gitattributes"),
      tool('merge_request', { note: 'the merge, resolved' }),
      tool('merge_status', { mr: 1, wait: true }),
    ]);
    expect(outcome.ok, outcome.error).toBe(true);
    target.unchanged();
    expect(markerFiles('/tmp', M, 1)).toEqual([]);
    const results = outcome.events
      .filter(isKind('tool.finished'))
      .filter((e) => e.data.name === 'sync')
      .map((e) => e.data.content);
    // Both calls name the conflicted file and change nothing (the second answers as the first).
    expect(results).toHaveLength(2);
    for (const text of results) expect(text).toMatch(/src\/a\.txt/);
    expect(results[1]).toBe(results[0]);
    expect(outcome.events.filter(isKind('merge.landed'))).toHaveLength(1);
    expect(hubGit(outcome.hub, 'show', 'main:src/a.txt')).toBe('resolved');
  }, 120_000);

  it('release: a peer that ends with uncommitted work behind planted links keeps it, nothing written through', async () => {
    const target = hostFiles(LINK_TARGETS);
    const repo = createUserRepo({ 'README.md': '# r\n', 'src/a.txt': 'one\n' }, 'colony-gitattack-');
    const outcome = await run('peers', repo, [
      bash(`${plantLinks(target.file)}; echo 'left uncommitted' > notes.txt; git init -q nested-at-release`),
    ]);
    expect(outcome.ok, outcome.error).toBe(true);
    target.unchanged();
    // Released: its uncommitted work was committed on its branch in the hub, nothing lost.
    const branch = hubGit(outcome.hub, 'for-each-ref', '--format=%(refname)', 'refs/heads/agent/');
    expect(branch).toMatch(/refs\/heads\/agent\/peer-1/);
    expect(hubGit(outcome.hub, 'show', 'refs/heads/agent/peer-1:notes.txt')).toBe('left uncommitted');
  }, 120_000);

  it("a nested repository's filter never runs; its files land as plain files, its .git does not", async () => {
    const repo = createUserRepo({ 'README.md': '# r\n' }, 'colony-gitattack-');
    const nested = [
      'mkdir -p sub && cd sub && git init -q',
      `git config filter.x.clean "touch /tmp/${M}-clean; cat"`,
      `git config filter.x.smudge "touch /tmp/${M}-smudge; cat"`,
      `git config core.fsmonitor "touch /tmp/${M}-fsmonitor"`,
      "echo '* filter=x' > .gitattributes && echo data > f.txt",
      'git add . && git -c user.name=a -c user.email=b commit -qm nested',
      'echo changed > f.txt && cd .. && echo top > top.txt',
    ].join(' && ');
    const outcome = await run('peers', repo, [
      bash(nested),
      tool('merge_request', { note: 'with a nested repository' }),
      tool('merge_status', { mr: 1, wait: true }),
    ]);
    expect(outcome.ok, outcome.error).toBe(true);
    expect(markerFiles('/tmp', M, 1)).toEqual([]);
    const tree = mainTree(outcome.hub);
    expect(tree.get('sub/f.txt')).toBe('100644');
    expect(tree.get('sub/.gitattributes')).toBe('100644');
    expect(tree.get('top.txt')).toBe('100644');
    expect([...tree.values()]).not.toContain('160000');
    expect([...tree.keys()].some((p) => p.includes('.git/'))).toBe(false);
    expect(hubGit(outcome.hub, 'show', 'main:sub/f.txt')).toBe('changed');
    // The model was told what happened to its nested repository.
    const results = outcome.events.filter(isKind('tool.finished')).map((e) => e.data.content);
    expect(results.some((text) => /sub.*nested repository|nested repository.*sub/i.test(text))).toBe(true);
  }, 120_000);

  it('an empty nested repository (git init in a folder) never fails the run; nothing is lost', async () => {
    const repo = createUserRepo({ 'README.md': '# r\n' }, 'colony-gitattack-');
    const outcome = await run('solo', repo, [
      bash(
        'git init -q empty-sub && echo kept > empty-sub/file.txt && git init -q bare-sub && echo top > top.txt',
      ),
    ]);
    expect(outcome.ok, outcome.error).toBe(true);
    const finished = outcome.events.find(isKind('run.finished'));
    expect(finished?.data.status, JSON.stringify(finished?.data)).toBe('succeeded');
    const tree = mainTree(outcome.hub);
    expect(tree.get('empty-sub/file.txt')).toBe('100644');
    expect(tree.get('top.txt')).toBe('100644');
    expect([...tree.values()]).not.toContain('160000');
  }, 120_000);
});
