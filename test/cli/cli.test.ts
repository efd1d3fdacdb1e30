import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, lastJsonLine } from '../helpers/cli.js';
import { openTestStore, superuserClient } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

function makeRepo(): string {
  return createUserRepo({ 'README.md': '# tiny\n' }, 'colony-cli-repo-').dir;
}

// Writes a file, then answers. Reacts to the request, so any number of runs can share the server.
const policy: ScriptedPolicy = (request) => {
  const toolResults = request.messages.filter((m) => m.role === 'tool').length;
  if (toolResults === 0)
    return {
      toolCalls: [{ name: 'write', arguments: { path: 'hello.txt', content: 'hi\n' } }],
      usage: { input: 100, cachedInput: 50, output: 10 },
    };
  return { text: 'wrote hello.txt', usage: { input: 120, cachedInput: 60, output: 5 } };
};

let fake: FakeProvider;
const noKeys = { OPENAI_API_KEY: '', ANTHROPIC_API_KEY: '', OPENAI_BASE_URL: '' };

beforeAll(async () => {
  fake = await startFakeProvider({ policy });
});
afterAll(async () => {
  await fake.close();
});

describe('colony CLI: usage errors are one clear line with exit code 2', () => {
  it('rejects an unknown flag', async () => {
    const r = await colony(['run', '--goal', 'x', '--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/frobnicate/);
  });

  it('names the known models for an unknown model', async () => {
    const r = await colony(['run', '--repo', makeRepo(), '--goal', 'x', '--model', 'gpt-99-ultra'], {
      env: noKeys,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/gpt-99-ultra/);
    expect(r.stderr).toMatch(/scripted/);
  });

  it('names the missing API key variable', async () => {
    const r = await colony(
      ['run', '--repo', makeRepo(), '--goal', 'x', '--model', 'openai-chat:gpt-5-mini'],
      { env: noKeys },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/OPENAI_API_KEY/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses a folder that is not a git repository', async () => {
    const r = await colony(['run', '--repo', mkdtempSync(join(tmpdir(), 'not-git-')), '--goal', 'x']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/not a git repository/);
  });

  it('rejects a bad number', async () => {
    const r = await colony(['run', '--goal', 'x', '--max-steps', 'many']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--max-steps must be a positive integer/);
  });

  it('refuses a negative number in one line, and names the variable of a bad environment value (issue 33)', async () => {
    const negative = await colony(['run', '--goal', 'x', '--max-steps', '-3']);
    expect(negative.code).toBe(2);
    expect(negative.stderr).toBe('colony: --max-steps must be a positive integer, got "-3"\n');
    const env = await colony(['run', '--repo', makeRepo(), '--goal', 'x'], {
      env: { ...noKeys, COLONY_MAX_STEPS: 'abc' },
    });
    expect(env.code).not.toBe(0);
    expect(env.stderr.trim().split('\n')).toHaveLength(1);
    expect(env.stderr).toContain('COLONY_MAX_STEPS=abc (maxSteps): not a number');
  });

  it('reports an unknown run id', async () => {
    const r = await colony(['show', 'r-nope-000000']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no such run/);
  });
});

describe('colony run against a real HTTP provider', () => {
  let runId = '';
  let repo = '';

  it('runs, prints events and a summary as JSON lines, and fetches the result branch', async () => {
    repo = makeRepo();
    const headBefore = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' });
    const r = await colony(
      [
        'run',
        '--repo',
        repo,
        '--goal',
        'write hello.txt',
        '--model',
        'openai-chat:fake-model',
        '--base-url',
        fake.url,
        '--verify',
        'test -f hello.txt',
        '--json',
      ],
      { env: noKeys },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.slice(0, -1).every((e) => typeof e.kind === 'string' && typeof e.seq === 'number')).toBe(
      true,
    );
    // The start event says where the run calls its model (the human output prints it as a line).
    const started = lines.find((e) => e.kind === 'run.started') as { data: { endpoints?: unknown } };
    expect(started.data.endpoints).toEqual([
      { model: 'openai-chat:fake-model', profile: null, baseUrl: fake.url.replace(/\/$/, ''), keyEnv: null },
    ]);
    const summary = lastJsonLine(r.stdout);
    runId = String(summary.runId);
    expect(summary).toMatchObject({
      status: 'succeeded',
      steps: 2,
      tokens: { input: 220, cachedInput: 110, cacheWrite: 0, output: 15, reasoning: 0 },
      costUsd: null,
      resultBranch: `colony/${runId}`,
    });
    expect(typeof summary.wallClockMs).toBe('number');
    const file = execFileSync('git', ['show', `colony/${runId}:hello.txt`], { cwd: repo, encoding: 'utf8' });
    expect(file).toBe('hi\n');
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' })).toBe(headBefore);
    // The worktree is removed at the end of the run; its branch stays in the hub.
    const runFolder = join(process.env.COLONY_HOME ?? '', 'runs', runId);
    expect(existsSync(join(runFolder, 'worktrees', 'solo'))).toBe(false);
    expect(
      execFileSync('git', ['rev-parse', '--verify', 'agent/solo'], {
        cwd: join(runFolder, 'hub.git'),
        encoding: 'utf8',
      }).trim(),
    ).toMatch(/^[0-9a-f]{40}$/);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' })).toBe('');
    // A team of one: the agent's work reached hub main through the integration queue, and the
    // result branch is hub main.
    const kinds = lines.slice(0, -1).map((e) => e.kind);
    expect(kinds).toContain('merge.requested');
    expect(kinds).toContain('merge.landed');
    expect(kinds.indexOf('merge.landed')).toBeLessThan(kinds.indexOf('verify.finished'));
    const hubMain = execFileSync('git', ['rev-parse', 'main'], {
      cwd: join(runFolder, 'hub.git'),
      encoding: 'utf8',
    });
    expect(execFileSync('git', ['rev-parse', `colony/${runId}`], { cwd: repo, encoding: 'utf8' })).toBe(
      hubMain,
    );
  });

  it('shows the same summary, lists the run and verifies its hash chain', async () => {
    const show = await colony(['show', runId, '--json']);
    expect(show.code).toBe(0);
    expect(lastJsonLine(show.stdout)).toMatchObject({ runId, status: 'succeeded', steps: 2 });
    const runs = await colony(['runs', '--json']);
    expect((JSON.parse(runs.stdout) as Array<{ runId: string }>).some((run) => run.runId === runId)).toBe(
      true,
    );
    const verify = await colony(['verify', runId]);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/intact/);
  });

  it('names the first altered row after a superuser edits the log', async () => {
    const store = await openTestStore();
    const admin = await superuserClient(store);
    try {
      const row = await admin.query<{ seq: string }>(
        "SELECT seq FROM colony.events WHERE run_id = $1 AND kind = 'model.response' ORDER BY seq LIMIT 1",
        [runId],
      );
      const seq = Number(row.rows[0]?.seq);
      await admin.query('BEGIN');
      await admin.query('SET LOCAL session_replication_role = replica');
      await admin.query(
        `UPDATE colony.events SET data = jsonb_set(data, '{latencyMs}', '999999') WHERE run_id = $1 AND seq = $2`,
        [runId, seq],
      );
      await admin.query('COMMIT');
      const verify = await colony(['verify', runId]);
      expect(verify.code).toBe(1);
      expect(verify.stdout).toMatch(new RegExp(`seq ${seq}\\b`));
    } finally {
      await admin.end();
      await store.close();
    }
  });

  it('resume on a finished run reports it and calls no model', async () => {
    const before = fake.stats().requests;
    const r = await colony(['resume', runId]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/already finished/);
    expect(fake.stats().requests).toBe(before);
  });

  it('send refuses a message to a finished run (delivery to live runs: test/topology/direct-messages)', async () => {
    const bad = await colony(['send', runId, 'no target']);
    expect(bad.code).toBe(2);
    const r = await colony(['send', runId, '--to', 'solo', 'please', 'add', 'tests']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/has finished \(succeeded\); no agent would read the message/);
    const { createCoordination } = await import('../../src/coord/index.js');
    const store = await openTestStore();
    const coord = await createCoordination(store);
    try {
      const taken = await coord.messages.takeDirect(runId, 'solo', 'interrupt');
      expect(taken.ok && taken.value).toEqual([]);
    } finally {
      await coord.close();
      await store.close();
    }
  });

  it('clean lists (--dry-run), then removes the run folder and the result branch of a named run, keeping its events', async () => {
    const store = await openTestStore();
    const { existsSync } = await import('node:fs');
    const folder = join(store.home, 'runs', runId);
    await store.close();
    const branch = `colony/${runId}`;
    const hasBranch = () =>
      execFileSync('git', ['branch', '--list', branch], { cwd: repo, encoding: 'utf8' }).trim() !== '';
    expect(existsSync(folder)).toBe(true);
    expect(hasBranch()).toBe(true);
    const bad = await colony(['clean', '--older-than', 'soon']);
    expect(bad.code).toBe(2);
    // Every finished run older than the cut-off is listed; nothing is removed.
    const dry = await colony(['clean', '--older-than', '0s', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`would remove ${folder}`);
    expect(dry.stdout).toContain(`would remove branch ${branch} in ${repo}`);
    expect(existsSync(folder)).toBe(true);
    expect(hasBranch()).toBe(true);
    // A run named on the command line: exactly that one.
    const r = await colony(['clean', runId]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`removing branch ${branch} in ${repo}`);
    expect(r.stdout).toMatch(/removed 1 run folder\(s\), 1 result branch\(es\)/);
    expect(existsSync(folder)).toBe(false);
    expect(hasBranch()).toBe(false);
    const show = await colony(['show', runId, '--json']);
    expect(lastJsonLine(show.stdout)).toMatchObject({ runId, status: 'succeeded' });
  });

  it('clean keeps a result branch the user has moved, and refuses an unknown run', async () => {
    const other = makeRepo();
    const r = await colony(
      [
        'run',
        '--repo',
        other,
        '--goal',
        'write hello.txt',
        '--model',
        'openai-chat:fake-model',
        '--base-url',
        fake.url,
        '--json',
      ],
      { env: noKeys },
    );
    expect(r.code, r.stderr).toBe(0);
    const id = String(lastJsonLine(r.stdout).runId);
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=U', '-c', 'user.email=u@u', ...args], {
        cwd: other,
        encoding: 'utf8',
      });
    git('checkout', '-q', `colony/${id}`);
    git('commit', '-q', '--allow-empty', '-m', 'mine');
    git('checkout', '-q', 'main');
    const cleaned = await colony(['clean', id]);
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain(`keeping colony/${id} in ${other}: it moved since the run fetched it`);
    expect(git('branch', '--list', `colony/${id}`).trim()).not.toBe('');
    const unknown = await colony(['clean', 'r-no-such-run']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no run r-no-such-run/);
  });

  it('says the provider asked to slow down when it answers 429 (not a configured limit)', async () => {
    fake.setFailures({ sequence: [{ status: 429, retryAfterMs: 10 }] });
    const r = await colony(
      [
        'run',
        '--repo',
        makeRepo(),
        '--goal',
        'write hello.txt',
        '--model',
        'openai-chat:fake-model',
        '--base-url',
        fake.url,
      ],
      { env: noKeys },
    );
    fake.setFailures(undefined);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /the provider asked to slow down \(429 rate limit\): model requests at once lowered to 1/,
    );
    expect(r.stdout).not.toMatch(/limit hit: model_concurrency/);
  });

  it('ends the agent with a clear error on 401 and exits 1', async () => {
    fake.setFailures({ sequence: [{ status: 401, message: 'bad key' }] });
    const r = await colony(
      [
        'run',
        '--repo',
        makeRepo(),
        '--goal',
        'x',
        '--model',
        'openai-chat:fake-model',
        '--base-url',
        fake.url,
        '--json',
      ],
      { env: noKeys },
    );
    fake.setFailures(undefined);
    expect(r.code).toBe(1);
    const events = r.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { kind?: string; data?: { kind?: string } });
    expect(events.some((e) => e.kind === 'model.error' && e.data?.kind === 'auth')).toBe(true);
    expect(lastJsonLine(r.stdout)).toMatchObject({ status: 'failed' });
  });
});

describe('colony run: Ctrl-C', () => {
  it('stops gracefully on SIGINT as the hint says; resume on the live run refuses before saying anything, then has nothing to do', async () => {
    const { spawn } = await import('node:child_process');
    const { COLONY_BIN } = await import('../helpers/cli.js');
    const slow = await startFakeProvider({
      policy: () => ({ toolCalls: [{ name: 'ls', arguments: {} }] }),
      latencyMs: 400,
    });
    try {
      const repo = makeRepo();
      const child = spawn(
        process.execPath,
        [
          COLONY_BIN,
          'run',
          '--repo',
          repo,
          '--goal',
          'loop',
          '--model',
          'openai-chat:fake-model',
          '--base-url',
          slow.url,
          '--json',
        ],
        { env: { ...process.env, ...noKeys } },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      // Interrupt once the agent has made a couple of steps.
      await new Promise<void>((resolve) => {
        const timer = setInterval(() => {
          if ((stdout.match(/"kind":"model.response"/g) ?? []).length >= 2) {
            clearInterval(timer);
            resolve();
          }
        }, 50);
      });
      const runId = /"runId":"([^"]+)"/.exec(stdout)?.[1] ?? '';
      // Its process is alive: resume refuses, and says nothing about resuming first.
      const live = await colony(['resume', runId], { env: noKeys });
      expect(live.code).toBe(1);
      expect(live.stdout).toBe('');
      expect(live.stderr).toMatch(
        /is being executed by another live process|still being executed by a live process/,
      );
      child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      // The hint says what a single Ctrl-C does (the run ends as stopped) and what resume is for.
      expect(stderr).toMatch(
        /it ends as stopped.*Ctrl-C again to quit at once and leave it unfinished; colony resume r-/,
      );
      // The agent only listed files: nothing landed, so no result branch in the repository.
      expect(lastJsonLine(stdout)).toMatchObject({ status: 'stopped', resultBranch: null });
      expect(execFileSync('git', ['branch', '--list', 'colony/*'], { cwd: repo, encoding: 'utf8' })).toBe('');
      const after = await colony(['resume', runId], { env: noKeys });
      expect(after.stdout).toMatch(/already finished/);
      expect(after.stdout).toMatch(/result branch: none \(nothing landed on main/);
    } finally {
      await slow.close();
    }
  });
});
