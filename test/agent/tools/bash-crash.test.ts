/**
 * The `bash` tool when Colony itself is killed: a child Node process runs the built tool and is
 * killed with SIGKILL mid-command; the command's whole process group must die with it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./fixtures/bash-child.mjs', import.meta.url));
const BUILT = path.join(ROOT, 'dist/src/agent/tools/bash.js');

/** The child runs dist/; rebuild when src/agent/tools is newer than it. */
function ensureBuilt(): void {
  const sources = path.join(ROOT, 'src/agent/tools');
  const newest = Math.max(...readdirSync(sources).map((name) => statSync(path.join(sources, name)).mtimeMs));
  if (existsSync(BUILT) && statSync(BUILT).mtimeMs >= newest) return;
  const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
  spawnSync(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json')], {
    cwd: ROOT,
    stdio: 'ignore',
  });
  if (!existsSync(BUILT)) throw new Error(`build failed: ${BUILT} is missing`);
}

/** Processes whose process group is `pgid`: live ones, or also zombies (not reaped by anyone). */
function inGroup(pgid: number, zombiesToo = false): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if ((zombiesToo || fields[0] !== 'Z') && Number(fields[2]) === pgid) found.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('bash tool when Colony is killed', () => {
  let root: string;
  const cleanups: Array<() => void> = [];
  beforeAll(ensureBuilt, 120_000);
  beforeEach(() => {
    const a = tempDir();
    root = a.dir;
    cleanups.push(a.cleanup);
  });
  afterEach(() => {
    for (const c of cleanups.splice(0)) c();
  });

  /** Starts the child with `command`, resolves once the command runs. */
  async function startChild(command: string) {
    const child = spawn(process.execPath, [CHILD, root, command], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('running\n')) resolve();
      });
      child.on('exit', () => reject(new Error(`child exited early: ${out}`)));
    });
    return { child, exited, output: () => out };
  }

  /** The command's process group, written by the command itself (field 5 of /proc/$$/stat). */
  const PGID = "cut -d' ' -f5 /proc/$$/stat > pgid; ";

  it('kills the command and its whole process group when the Node process is SIGKILLed', async () => {
    const { child, exited } = await startChild(`${PGID}sleep 100 & sleep 1 && echo x >> f`);
    await sleep(200);
    const pgidFile = path.join(root, 'pgid');
    expect(existsSync(pgidFile)).toBe(true);
    const pgid = Number(readFileSync(pgidFile, 'utf8').trim());
    expect(inGroup(pgid).length).toBeGreaterThan(0);
    child.kill('SIGKILL');
    await exited;
    await sleep(2000);
    expect(existsSync(path.join(root, 'f'))).toBe(false);
    expect(inGroup(pgid)).toEqual([]);
  }, 15_000);

  it('leaves nothing behind and reports normally when the child lives', async () => {
    const { exited, output } = await startChild(`${PGID}sleep 0.2; echo done`);
    await exited;
    expect(output()).toContain('"done\\n\\n[exit code 0]"');
    const pgid = Number(readFileSync(path.join(root, 'pgid'), 'utf8').trim());
    // Not even a zombie: the watchdog is reaped by the wrapper, the wrapper by Node.
    expect(inGroup(pgid, true)).toEqual([]);
  }, 15_000);
});
