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

  it('clean removes the run folder of finished runs but keeps their events', async () => {
    const store = await openTestStore();
    const { existsSync } = await import('node:fs');
    const folder = join(store.home, 'runs', runId);
    await store.close();
    expect(existsSync(folder)).toBe(true);
    const bad = await colony(['clean', '--older-than', 'soon']);
    expect(bad.code).toBe(2);
    const r = await colony(['clean', '--older-than', '0s']);
    expect(r.code).toBe(0);
    expect(existsSync(folder)).toBe(false);
    const show = await colony(['show', runId, '--json']);
    expect(lastJsonLine(show.stdout)).toMatchObject({ runId, status: 'succeeded' });
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
  it('stops gracefully on SIGINT with status stopped and keeps the work so far', async () => {
    const { spawn } = await import('node:child_process');
    const { COLONY_BIN } = await import('../helpers/cli.js');
    const slow = await startFakeProvider({
      policy: () => ({ toolCalls: [{ name: 'ls', arguments: {} }] }),
      latencyMs: 400,
    });
    try {
      const child = spawn(
        process.execPath,
        [
          COLONY_BIN,
          'run',
          '--repo',
          makeRepo(),
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
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
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
      child.kill('SIGINT');
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(1);
      expect(lastJsonLine(stdout)).toMatchObject({ status: 'stopped' });
    } finally {
      await slow.close();
    }
  });
});
