import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { embeddedPaths } from '../../src/store/embedded-paths.js';
import { isProcessAlive } from '../../src/store/process-liveness.js';
import { type StoreChild, spawnStoreChild } from './child-process.js';

// One throwaway home for this file (tests run in order), so initdb happens once.
const home = mkdtempSync(join(tmpdir(), 'colony-embedded-'));
const paths = embeddedPaths(home);
const children: StoreChild[] = [];

function child(): StoreChild {
  const c = spawnStoreChild({ COLONY_HOME: home, COLONY_DATABASE_URL: '' });
  children.push(c);
  return c;
}

function postmasterPid(): number | null {
  try {
    return Number(readFileSync(join(paths.data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return null;
  }
}

async function waitUntil(check: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

afterAll(async () => {
  for (const c of children) c.proc.kill('SIGKILL');
  const pid = postmasterPid();
  if (pid && isProcessAlive(pid)) {
    process.kill(pid, 'SIGCONT');
    process.kill(pid, 'SIGQUIT');
  }
  rmSync(home, { recursive: true, force: true });
});

describe.skipIf(Boolean(process.env.COLONY_DATABASE_URL))('shared embedded server', () => {
  it('two processes share one server; it stops only when the last one closes', async () => {
    const a = child();
    const b = child();
    const openedA = (await a.send('open')).opened as { mode: string; port: number };
    expect(openedA.mode).toBe('cold-start');
    const pid = postmasterPid();
    expect(pid && isProcessAlive(pid)).toBe(true);

    const openedB = (await b.send('open')).opened as { mode: string; port: number };
    expect(openedB).toMatchObject({ mode: 'connected', port: openedA.port });
    expect(postmasterPid()).toBe(pid); // not restarted
    expect(existsSync(join(paths.clients, String(a.proc.pid)))).toBe(true);
    expect(existsSync(join(paths.clients, String(b.proc.pid)))).toBe(true);

    await a.send('close');
    expect(isProcessAlive(pid!)).toBe(true);
    expect(await b.send('append shared 5 b')).toEqual({ appended: [1, 2, 3, 4, 5] });

    await b.send('close');
    expect(await waitUntil(() => !isProcessAlive(pid!))).toBe(true);
    expect(postmasterPid()).toBeNull();
    expect(a.stderr() + b.stderr()).toBe('');
  });

  it('a later process warm-starts the stopped server and keeps the data', async () => {
    const c = child();
    expect((await c.send('open')).opened).toMatchObject({ mode: 'warm-start' });
    expect(await c.send('append shared 1 c')).toEqual({ appended: [6] });
    await c.send('close');
  });

  it('adopts a server left running by a crashed process, naming that process', async () => {
    const starter = child();
    const a = child();
    await starter.send('open');
    await a.send('open');
    await starter.send('close'); // clean exit: a still uses the server
    const pid = postmasterPid();
    a.proc.kill('SIGKILL');
    await a.exited;
    expect(isProcessAlive(pid!)).toBe(true); // detached: survives its users

    const b = child();
    expect((await b.send('open')).opened).toMatchObject({ mode: 'adopted' });
    expect(postmasterPid()).toBe(pid);
    expect(b.stderr()).toContain(`left running by crashed process ${a.proc.pid}\n`);
    expect(existsSync(join(paths.clients, String(a.proc.pid)))).toBe(false); // pruned
    await b.send('close');
    expect(await waitUntil(() => !isProcessAlive(pid!))).toBe(true);
  });

  it('removes a stale postmaster.pid whose process is dead, with a message', async () => {
    const dead = spawnSync('true').pid;
    writeFileSync(
      join(paths.data, 'postmaster.pid'),
      `${dead}\n${paths.data}\n0\n5432\n\n127.0.0.1\n0 0\nready\n`,
    );
    const c = child();
    expect((await c.send('open')).opened).toMatchObject({ mode: 'warm-start' });
    expect(c.stderr()).toContain(
      `removing stale ${join(paths.data, 'postmaster.pid')} (Postgres pid ${dead}`,
    );
    await c.send('close');
  });

  it('removes a lock file left by a dead process', async () => {
    const dead = spawnSync('true').pid;
    writeFileSync(paths.lock, `${dead} -`);
    const c = child();
    expect((await c.send('open')).opened).toMatchObject({ mode: 'warm-start' });
    await c.send('close');
    expect(existsSync(paths.lock)).toBe(false);
  });

  it('kills an unresponsive orphaned server when no live process uses it', async () => {
    const a = child();
    await a.send('open');
    const pid = postmasterPid()!;
    a.proc.kill('SIGKILL');
    await a.exited;
    process.kill(pid, 'SIGSTOP'); // alive but not answering
    const b = child();
    expect((await b.send('open')).opened).toMatchObject({ mode: 'warm-start' });
    expect(b.stderr()).toContain(`killing unresponsive orphaned Postgres (pid ${pid}`);
    expect(isProcessAlive(pid)).toBe(false);
    expect(postmasterPid()).not.toBe(pid);
    await b.send('close');
  });
});
