/**
 * The bash tool's process handling inside the bubblewrap sandbox: time-out, abort, background
 * processes and Colony's own death (SIGKILL) still leave no process of the command behind. The
 * command's PIDs are the sandbox's own, so the host side is found by a marker in the command line.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/agent/tools/bash.js';
import type { Sandbox } from '../../../src/sandbox/sandbox.js';
import { ensureBuilt, machineSandbox } from '../../sandbox/helpers.js';
import { tempDir } from './helpers.js';

const CHILD = fileURLToPath(new URL('./fixtures/bash-child.mjs', import.meta.url));

/** Host processes (not zombies) with `marker` in an argument: bwrap, the sandbox's PID 1, bash, sleep. */
function hostProcesses(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] === 'Z') continue;
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').includes(marker)) found.push(Number(name));
    } catch {
      // Ended while we looked.
    }
  }
  return found;
}

async function waitUntil(predicate: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (predicate()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return predicate();
}

/** A sleep whose duration is unique to this test, so its host process can be found. */
function marker(): string {
  return `${5000 + Math.floor(Math.random() * 4000)}.${String(Math.floor(Math.random() * 1000)).padStart(3, '0')}7`;
}

describe('bash tool in the sandbox', () => {
  let root: string;
  let sandbox: Sandbox;
  const cleanups: Array<() => void> = [];
  beforeAll(async () => {
    sandbox = await machineSandbox();
  });
  beforeEach(() => {
    const a = tempDir();
    root = a.dir;
    cleanups.push(a.cleanup);
  });
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  it('kills the whole sandbox on time-out', async () => {
    const m = marker();
    const started = Date.now();
    const result = await createBashTool(root, { sandbox }).run(
      { command: `sleep ${m} & sleep ${m} & echo started; wait`, timeout_s: 1 },
      {},
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.isError).toBe(true);
    expect(result.content).toContain('started');
    expect(result.content).toContain('timed out after 1 s');
    expect(await waitUntil(() => hostProcesses(m).length === 0)).toBe(true);
  });

  it('kills background processes when the command ends', async () => {
    const m = marker();
    const started = Date.now();
    const result = await createBashTool(root, { sandbox }).run({ command: `sleep ${m} & echo bye` }, {});
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result.content).toBe('bye\n\n[exit code 0]');
    expect(await waitUntil(() => hostProcesses(m).length === 0)).toBe(true);
  });

  it('kills even a process that left the group with setsid (the PID namespace ends)', async () => {
    const m = marker();
    const result = await createBashTool(root, { sandbox }).run(
      { command: `setsid sleep ${m} & echo bye` },
      {},
    );
    expect(result.content).toBe('bye\n\n[exit code 0]');
    expect(await waitUntil(() => hostProcesses(m).length === 0)).toBe(true);
  });

  it('honours the abort signal', async () => {
    const m = marker();
    const controller = new AbortController();
    const run = createBashTool(root, { sandbox }).run(
      { command: `sleep ${m} & wait` },
      { signal: controller.signal },
    );
    expect(await waitUntil(() => hostProcesses(m).length > 0)).toBe(true);
    controller.abort();
    const result = await run;
    expect(result.isError).toBe(true);
    expect(result.content).toContain('aborted');
    expect(await waitUntil(() => hostProcesses(m).length === 0)).toBe(true);
  });

  it('reports exit codes and signal deaths as without a sandbox', async () => {
    const tool = createBashTool(root, { sandbox });
    expect((await tool.run({ command: 'echo out; echo err >&2; exit 3' }, {})).content).toBe(
      'out\nerr\n\n[exit code 3]',
    );
    expect((await tool.run({ command: 'kill -9 $$' }, {})).content).toBe('(no output)\n[exit code 137]');
  });

  describe('when Colony is killed', () => {
    beforeAll(() => ensureBuilt(['src/agent/tools', 'src/sandbox']), 120_000);

    it('takes the sandbox and everything in it down', async () => {
      const m = marker();
      const child = spawn(
        process.execPath,
        [CHILD, root, `sleep ${m} & sleep 1 && echo x >> f`, '--sandbox'],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
      await new Promise<void>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('running\n')) resolve();
        });
        child.on('exit', () => reject(new Error(`child exited early: ${out}`)));
      });
      expect(await waitUntil(() => hostProcesses(m).length > 0)).toBe(true);
      child.kill('SIGKILL');
      await exited;
      expect(await waitUntil(() => hostProcesses(m).length === 0)).toBe(true);
      await new Promise((r) => setTimeout(r, 1500));
      expect(existsSync(path.join(root, 'f'))).toBe(false);
      expect(hostProcesses(m)).toEqual([]);
    }, 20_000);
  });
});
