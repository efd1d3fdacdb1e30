import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/agent/tools/bash.js';
import { tempDir } from './helpers.js';

/** True while the process exists and is not a zombie (a container's PID 1 may not reap orphans). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

function pidsIn(file: string): number[] {
  return readFileSync(file, 'utf8').trim().split('\n').map(Number);
}

async function waitUntil(predicate: () => boolean, ms = 2000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return predicate();
}

describe('bash tool', () => {
  let root: string;
  const cleanups: Array<() => void> = [];
  beforeEach(() => {
    const a = tempDir();
    root = a.dir;
    cleanups.push(a.cleanup);
  });
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('runs in the worktree and reports combined output and exit code', async () => {
    const tool = createBashTool(root);
    const result = await tool.run({ command: 'pwd; echo out; echo err >&2; exit 3' }, {});
    expect(result.isError).toBe(false);
    expect(result.content).toBe(`${root}\nout\nerr\n\n[exit code 3]`);
    expect((await tool.run({ command: 'true' }, {})).content).toBe('(no output)\n[exit code 0]');
  });

  it('gives commands no stdin', async () => {
    const started = Date.now();
    const result = await createBashTool(root).run({ command: 'cat; echo done' }, {});
    expect(result.content).toContain('done');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('kills the whole process group on time-out', async () => {
    const started = Date.now();
    const result = await createBashTool(root).run(
      {
        command: 'sleep 100 & echo $! > pids; sleep 100 & echo $! >> pids; echo started; wait',
        timeout_s: 1,
      },
      {},
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('started');
    expect(result.content).toContain('timed out after 1 s');
    const pids = pidsIn(path.join(root, 'pids'));
    expect(pids).toHaveLength(2);
    expect(await waitUntil(() => pids.every((pid) => !alive(pid)))).toBe(true);
  });

  it('kills background processes when the command ends', async () => {
    const started = Date.now();
    const result = await createBashTool(root).run({ command: 'sleep 100 & echo $! > pids; echo bye' }, {});
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.content).toBe('bye\n\n[exit code 0]');
    const pids = pidsIn(path.join(root, 'pids'));
    expect(await waitUntil(() => pids.every((pid) => !alive(pid)))).toBe(true);
  });

  it('honours the abort signal', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const started = Date.now();
    const result = await createBashTool(root).run(
      { command: 'sleep 100 & echo $! > pids; wait' },
      { signal: controller.signal },
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('aborted');
    const pids = pidsIn(path.join(root, 'pids'));
    expect(await waitUntil(() => pids.every((pid) => !alive(pid)))).toBe(true);
    const already = await createBashTool(root).run({ command: 'touch ran' }, { signal: controller.signal });
    expect(already.isError).toBe(true);
  });

  it('drops secrets from the environment, even when the parent has them', async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = 'sk-parent-secret-value';
    try {
      const result = await createBashTool(root, {
        env: { EXTRA_SETTING: 'yes' },
      }).run({ command: 'env' }, {});
      expect(result.content).not.toContain('OPENAI_API_KEY');
      expect(result.content).not.toContain('sk-parent-secret-value');
      expect(result.content).toContain('EXTRA_SETTING=yes');
      expect(result.content).toContain('PATH=');
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  it('filters every secret-looking name, COLONY_DATABASE_URL and PG* variables', async () => {
    const baseEnv = {
      PATH: process.env.PATH,
      HOME: '/tmp',
      ANTHROPIC_API_KEY: 'a',
      GITHUB_TOKEN: 'b',
      MY_SECRET: 'c',
      DB_PASSWORD: 'd',
      FTP_PASSWD: 'e',
      AWS_CREDENTIALS_FILE: 'f',
      HTTP_AUTHORIZATION: 'g',
      COLONY_DATABASE_URL: 'postgres://x',
      PGPASSWORD: 'h',
      PGHOST: 'i',
      KEEP_ME: 'ok',
    };
    const result = await createBashTool(root, { baseEnv }).run({ command: 'env | cut -d= -f1 | sort' }, {});
    const names = result.content.split('\n').filter((line) => /^[A-Z_]+$/.test(line));
    expect(names).toContain('KEEP_ME');
    expect(names).toContain('HOME');
    for (const secret of Object.keys(baseEnv).filter((n) => !['PATH', 'HOME', 'KEEP_ME'].includes(n))) {
      expect(names, secret).not.toContain(secret);
    }
  });

  it('caps output, keeping head and tail and saying how much was cut', async () => {
    const result = await createBashTool(root).run(
      { command: "echo HEAD; head -c 100000 /dev/zero | tr '\\0' a; echo; echo TAIL" },
      {},
    );
    expect(result.content.length).toBeLessThan(31_000);
    expect(result.content.startsWith('HEAD\n')).toBe(true);
    expect(result.content).toContain('TAIL\n\n[exit code 0]');
    expect(result.content).toMatch(
      /\[… 70\d{3} characters cut from the middle of the output \(100011 in total\) …\]/,
    );
  });

  it('validates arguments', async () => {
    const tool = createBashTool(root);
    expect((await tool.run({}, {})).content).toContain('Invalid arguments for bash');
    expect((await tool.run({ command: 'true', timeout_s: 601 }, {})).content).toContain('timeout_s');
    expect((await tool.run({ command: 'true', timeout_s: -1 }, {})).isError).toBe(true);
    expect(tool.spec.parameters).toMatchObject({ required: ['command'] });
  });
});
