/**
 * The file tools and the repository summary against a hostile agent and a hostile repository, in
 * real solo runs (executeRun in this process, real git, the embedded Postgres log, the bubblewrap
 * sandbox, the fake provider over HTTP). `write`, `edit` and `read` run in Colony's own process, not
 * in the sandbox, and the repository summary reads the user's files into the system prompt: each
 * must act on where a path really leads, never follow a link out of the checkout or into `.git`, and
 * never open a FIFO. The evidence is checked on the host (the checkout's `.git`, a host file's
 * content, marker files) and in every request the fake provider received and the run's log.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordNewRun } from '../../src/cli/new-run.js';
import { type Coordination, createCoordination } from '../../src/coord/index.js';
import { isKind, type StoredEvent } from '../../src/core/events.js';
import { runDir } from '../../src/core/home.js';
import { createProvider } from '../../src/model/index.js';
import type { ScriptedPolicy, ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { ModelRecord } from '../../src/model/types.js';
import type { RunSpec } from '../../src/run/run-spec.js';
import { resolveHome, type Store } from '../../src/store/index.js';
import { executeRun } from '../../src/topology/execute-run.js';
import { startFakeProvider } from '../fake-provider/server.js';
import { openTestStore, testRunId } from '../helpers/db.js';
import { markerFiles, sha256Of } from '../helpers/escape-evidence.js';
import { tempDirs } from './helpers.js';

const M = `colony-file-attack-${process.pid}-${Date.now().toString(36)}`;

let store: Store;
let coord: Coordination;
const dirs = tempDirs();

beforeAll(async () => {
  store = await openTestStore();
  coord = await createCoordination(store);
});
afterAll(async () => {
  await coord?.close();
  await store?.close();
  dirs.cleanup();
});

/** A user repository (branch main, one commit) whose entries are files or symbolic links. */
function hostileRepo(entries: Record<string, { file: string } | { link: string }>): {
  dir: string;
  base: string;
} {
  const dir = dirs.make('colony-file-attack-repo-');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    }).trim();
  git('init', '-q', '-b', 'main');
  for (const [name, entry] of Object.entries(entries)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    if ('file' in entry) writeFileSync(path.join(dir, name), entry.file);
    else symlinkSync(entry.link, path.join(dir, name));
  }
  git('add', '-A');
  git('commit', '-q', '-m', 'init');
  return { dir, base: git('rev-parse', 'HEAD') };
}

interface Solo {
  ok: boolean;
  error: string;
  events: StoredEvent[];
  /** Every request body the fake provider received, as JSON. */
  seen: string;
  /** Every event's data, as JSON. */
  logged: string;
  /** The solo agent's tool results, in order. */
  results: { name: string; isError: boolean; content: string }[];
  ms: number;
}

/** One solo run of `policy` on `repo` (`setup`: the run's setup command). */
async function runSolo(
  label: string,
  repo: { dir: string; base: string },
  policy: (runFolder: string) => ScriptedPolicy,
  setup?: string,
): Promise<Solo> {
  const runId = testRunId(label);
  const runFolder = runDir(resolveHome(), runId);
  const fake = await startFakeProvider({ policy: policy(runFolder) });
  const record: ModelRecord = {
    id: 'openai-chat:fake',
    protocol: 'openai-chat',
    name: 'fake',
    contextWindow: 128_000,
    maxOutput: 8_192,
    prices: null,
    baseUrl: fake.url,
  };
  const spec: RunSpec = {
    runId,
    topology: 'solo',
    repo: repo.dir,
    goal: 'Do as scripted.',
    baseRef: 'HEAD',
    baseCommit: repo.base,
    model: record.id,
    baseUrl: fake.url,
    customModels: [record],
    maxSteps: 12,
    profile: 'coder',
    stream: false,
    modelTimeoutMs: 30_000,
    maxRetries: 0,
    bashTimeoutS: 30,
    deadlineAt: new Date(Date.now() + 4 * 60_000).toISOString(),
    sandbox: { enabled: true, network: false, passEnv: [] },
    ...(setup ? { setup } : {}),
  };
  const started = Date.now();
  let result: Awaited<ReturnType<typeof executeRun>>;
  try {
    await recordNewRun(store, spec);
    result = await executeRun({
      store,
      spec,
      provider: createProvider(record, { apiKey: 'sk-fake', maxRetries: 0, timeoutMs: 30_000 }),
      env: { ...process.env },
      signal: new AbortController().signal,
      resumed: false,
      coordination: coord,
    });
  } finally {
    await fake.close();
  }
  const ms = Date.now() - started;
  await store.log.flush();
  const events = await store.log.read(runId);
  const results = events
    .filter(isKind('tool.finished'))
    .map((e) => ({ name: e.data.name, isError: e.data.isError, content: e.data.content }));
  return {
    ok: result.ok,
    error: result.ok ? '' : result.error,
    events,
    seen: fake
      .requests()
      .map((r) => JSON.stringify(r.body))
      .join('\n'),
    logged: JSON.stringify(events.map((e) => e.data)),
    results,
    ms,
  };
}

/** Turns in order (then a final answer); `after(i)` runs before turn i+1 is answered. */
function turns(list: ScriptedTurn[], after?: (index: number) => void): ScriptedPolicy {
  return (_request, index) => {
    if (index > 0) after?.(index - 1);
    return list[index] ?? { text: 'Done.' };
  };
}

const bash = (command: string): ScriptedTurn => ({ toolCalls: [{ name: 'bash', arguments: { command } }] });
const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ name, arguments: args }],
});

describe('the file tools of a hostile agent in a real sandboxed run', () => {
  it("refuse to write or edit the checkout's .git through an in-tree link (g -> .git)", async () => {
    const repo = hostileRepo({ 'src/app.txt': { file: 'one\n' } });
    const host = dirs.make('colony-file-attack-host-');
    const dotGits: (string | null)[] = [];
    let dotGit = '';
    const solo = await runSolo('dotgit-link', repo, (runFolder) => {
      dotGit = path.join(runFolder, 'worktrees', 'solo', '.git');
      return turns(
        [
          bash('ln -s .git g && ln -s ./g h && ls -la g h && cat g'),
          call('write', { path: 'g', content: `gitdir: ${host}\n` }),
          call('edit', { path: 'h', old: 'gitdir: ', new: `gitdir: ${host}\n# ` }),
          call('write', { path: 'src/../g', content: `gitdir: ${host}\n` }),
          bash(`echo escaped > ${host}/${M}-dotgit; cat .git`),
        ],
        () => dotGits.push(existsSync(dotGit) ? readFileSync(dotGit, 'utf8') : null),
      );
    });
    expect(solo.ok, solo.error).toBe(true);
    expect(solo.results.map((r) => r.name)).toEqual(['bash', 'write', 'edit', 'write', 'bash']);
    const [, write, edit, write2] = solo.results;
    for (const refused of [write, edit, write2]) {
      expect(refused?.isError, refused?.content).toBe(true);
      expect(refused?.content).toMatch(/refus/i);
      expect(refused?.content).toContain('.git');
    }
    // The checkout's `.git` kept Colony's content after every call.
    expect(dotGits.length).toBe(5);
    for (const [i, content] of dotGits.entries())
      expect(content, `after call ${i + 1}`).toMatch(/^gitdir: .*\/repos\/solo\.git\n$/);
    expect(readdirSync(host)).toEqual([]);
    expect(markerFiles(host, M)).toEqual([]);
  }, 180_000);

  it('refuse to write, edit or read a host file or folder through a link', async () => {
    const repo = hostileRepo({ 'src/app.txt': { file: 'one\n' } });
    const host = dirs.make('colony-file-attack-host-');
    const hostFile = path.join(host, 'host.txt');
    const secret = `${M}-host-secret`;
    writeFileSync(hostFile, `original ${secret}\n`);
    const before = sha256Of(hostFile);
    const solo = await runSolo('host-link', repo, () =>
      turns([
        bash(`ln -s ${hostFile} h && ln -s ${host} d && ln -s h hh && ln -s /proc/self/environ env`),
        call('write', { path: 'h', content: `${M}-written\n` }),
        call('edit', { path: 'hh', old: 'original', new: `${M}-edited` }),
        call('write', { path: 'd/new.txt', content: `${M}-new\n` }),
        call('read', { path: 'hh' }),
        call('read', { path: 'env' }),
        call('ls', { path: 'd' }),
        call('grep', { pattern: 'original|PATH=', path: 'd' }),
        call('grep', { pattern: `original ${M}|PATH=/` }),
      ]),
    );
    expect(solo.ok, solo.error).toBe(true);
    expect(solo.results.map((r) => [r.name, r.isError])).toEqual([
      ['bash', false],
      ['write', true],
      ['edit', true],
      ['write', true],
      ['read', true],
      ['read', true],
      ['ls', true],
      ['grep', true],
      ['grep', false],
    ]);
    expect(solo.results.at(-1)?.content).toBe('No matches.');
    expect(sha256Of(hostFile)).toBe(before);
    expect(readdirSync(host)).toEqual(['host.txt']);
    expect(solo.seen).not.toContain(secret);
    expect(solo.logged).not.toContain(secret);
    const environ = environEntries();
    expect(environ.filter((entry) => solo.seen.includes(entry))).toEqual([]);
  }, 180_000);
});

/** This process's /proc/self/environ entries (`NAME=value`) long enough to be unmistakable. */
function environEntries(): string[] {
  return readFileSync('/proc/self/environ', 'utf8')
    .split('\0')
    .filter((entry) => entry.length >= 12 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(entry));
}

describe('a hostile repository read into the prompt in a real run', () => {
  it('never follows AGENTS.md, CLAUDE.md or README.md links out of the repository', async () => {
    const host = dirs.make('colony-file-attack-host-');
    const secretA = `${M}-agents-secret`;
    const secretB = `${M}-readme-secret`;
    writeFileSync(path.join(host, 'a.txt'), `${secretA}\n`);
    writeFileSync(path.join(host, 'b.txt'), `${secretB}\n`);
    const repo = hostileRepo({
      'AGENTS.md': { link: path.join(host, 'a.txt') },
      'CLAUDE.md': { link: '/proc/self/environ' },
      'README.md': { link: path.join(host, 'b.txt') },
      'src/app.txt': { file: 'one\n' },
    });
    const solo = await runSolo('hostile-summary', repo, () => turns([]));
    expect(solo.ok, solo.error).toBe(true);
    const system = solo.events.find(isKind('agent.started'))?.data.system ?? '';
    expect(system).toContain('src/app.txt');
    expect(system).toContain(`(a link to ${path.join(host, 'a.txt')}, not followed)`);
    expect(system).toContain('(a link to /proc/self/environ, not followed)');
    expect(system).toContain(`(a link to ${path.join(host, 'b.txt')}, not followed)`);
    for (const secret of [secretA, secretB]) {
      expect(solo.seen, 'the model saw a host file').not.toContain(secret);
      expect(solo.logged, 'the log holds a host file').not.toContain(secret);
    }
    const environ = environEntries();
    expect(environ.length).toBeGreaterThan(3);
    expect(environ.filter((entry) => solo.seen.includes(entry))).toEqual([]);
    expect(environ.filter((entry) => solo.logged.includes(entry))).toEqual([]);
  }, 180_000);

  it("does not hang on a FIFO named README.md (left by the repository's setup script)", async () => {
    const repo = hostileRepo({
      'setup.sh': { file: 'rm -f README.md\nmkfifo README.md\n' },
      'src/app.txt': { file: 'one\n' },
    });
    const released = `${M}-fifo-released`;
    let valve: ReturnType<typeof spawn> | undefined;
    try {
      const solo = await runSolo(
        'fifo-readme',
        repo,
        (runFolder) => {
          // A blocked read of the FIFO would block this whole process (the fake provider too): after
          // 20 s a writer opens it, so the test fails with the evidence instead of hanging.
          const fifo = path.join(runFolder, 'worktrees', 'solo', 'README.md');
          valve = spawn(
            'timeout',
            ['120', 'sh', '-c', `sleep 20; [ -p "${fifo}" ] && echo ${released} > "${fifo}"`],
            { stdio: 'ignore' },
          );
          return turns([]);
        },
        'sh setup.sh',
      );
      expect(solo.ok, solo.error).toBe(true);
      expect(solo.seen).not.toContain(released);
      expect(solo.ms, 'the run waited on the FIFO').toBeLessThan(20_000);
      const system = solo.events.find(isKind('agent.started'))?.data.system ?? '';
      expect(system).toContain('src/app.txt');
      expect(system).toContain('## README (head)\n(a FIFO (named pipe), not read)');
    } finally {
      if (valve && valve.exitCode === null) valve.kill('SIGTERM');
    }
  }, 180_000);
});
