/**
 * What a command inside the sandbox can and cannot do, through the real bash tool and real bwrap: it
 * sees and changes only its checkout, not the state folder, other folders or Colony's environment; its
 * /proc shows its own processes only; it has no network unless allowed; it gets the variables passed
 * to it by name; a read-only profile's bash cannot write.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { toolsForProfile } from '../../src/agent/profiles.js';
import { createBashTool } from '../../src/agent/tools/bash.js';
import type { Sandbox } from '../../src/sandbox/sandbox.js';
import { machineSandbox, tempDirs } from './helpers.js';

const FAKE_KEY = 'sk-fake-parent-key-0123456789';

describe('a sandboxed bash command', () => {
  const dirs = tempDirs();
  let sandbox: Sandbox;
  let checkout: string;
  let state: string;
  let server: Server;
  let port: number;
  const saved = { key: process.env.OPENAI_API_KEY, home: process.env.COLONY_HOME };

  beforeAll(async () => {
    sandbox = await machineSandbox();
    server = createServer((_req, res) => res.end('hello from the host\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    checkout = dirs.make('colony-sandbox-checkout-');
    // Stands for the state folder ($COLONY_HOME): outside the checkout, readable by this user.
    state = dirs.make('colony-sandbox-state-');
    writeFileSync(path.join(state, 'server-token'), 'the-token\n');
    process.env.OPENAI_API_KEY = FAKE_KEY;
    process.env.COLONY_HOME = state;
  });
  afterEach(() => {
    dirs.cleanup();
    restore('OPENAI_API_KEY', saved.key);
    restore('COLONY_HOME', saved.home);
  });

  const run = async (command: string, options: { sandbox?: Sandbox; root?: string } = {}) => {
    const tool = createBashTool(options.root ?? checkout, { sandbox: options.sandbox ?? sandbox });
    const result = await tool.run({ command }, {});
    return result.content;
  };

  it('runs in its checkout, which it can read and change', async () => {
    writeFileSync(path.join(checkout, 'in.txt'), 'inside\n');
    const out = await run('pwd; cat in.txt; echo made > out.txt');
    expect(out).toBe(`${checkout}\ninside\n\n[exit code 0]`);
    expect(readFileSync(path.join(checkout, 'out.txt'), 'utf8')).toBe('made\n');
  });

  it('cannot read a file outside its checkout (the state folder, /root, this repository)', async () => {
    const token = path.join(state, 'server-token');
    const out = await run(`cat ${token}; ls /root; ls ${process.cwd()}; echo done`);
    expect(out).not.toContain('the-token');
    expect(out).toMatch(/server-token: No such file or directory/);
    expect(out).toMatch(/\/root': No such file or directory/);
    expect(out).not.toContain('package.json');
    expect(out).toContain('done');
  });

  it('cannot write outside its checkout', async () => {
    const target = path.join(state, 'written');
    // System folders too (this test may run as root): names of this run only, removed if they appear.
    const name = `colony-sandbox-test-${process.pid}-${Date.now()}`;
    const system = ['/usr', '/etc', '/'].map((dir) => path.join(dir, name));
    try {
      const out = await run(
        `echo x > ${target}; ${system.map((f) => `echo y > ${f}`).join('; ')}; mkdir -p ${state}/sub && echo v > ${state}/sub/f; echo done`,
      );
      expect(out).toContain('done');
      expect(existsSync(target)).toBe(false);
      expect(existsSync(path.join(state, 'sub'))).toBe(false);
      for (const file of system) expect(existsSync(file), file).toBe(false);
      expect(out).toMatch(/Read-only file system/);
    } finally {
      for (const file of system) rmSync(file, { force: true });
    }
  });

  it("never sees Colony's environment: not in env, /proc/1/environ or the parent's environ", async () => {
    const out = await run(
      [
        'env',
        'echo ---',
        "tr '\\0' '\\n' < /proc/1/environ",
        'echo ---',
        `cat /proc/${process.pid}/environ`,
        `cat /proc/${process.ppid}/environ`,
        "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < $f; done",
      ].join('; '),
    );
    expect(out).not.toContain(FAKE_KEY);
    expect(out).not.toContain('OPENAI_API_KEY');
    expect(out).not.toContain('COLONY_HOME');
    expect(out).not.toContain(state);
    const names = (out.split('---')[0] ?? '')
      .trim()
      .split('\n')
      .map((line) => line.split('=')[0]);
    // The allow-list (bash adds PWD, SHLVL and _ itself; LANG and TERM only when Colony has them).
    const expected = ['PATH', 'HOME', 'PWD', 'SHLVL', '_', ...['LANG', 'TERM'].filter((n) => process.env[n])];
    expect(new Set(names)).toEqual(new Set(expected));
  });

  it('sees only its own processes in /proc', async () => {
    const out = await run(
      "for p in /proc/[0-9]*; do echo \"$(basename $p) $(tr '\\0' ' ' < $p/cmdline)\"; done",
    );
    const lines = out.split('\n').filter((line) => /^\d+ /.test(line));
    const pids = lines.map((line) => Number(line.split(' ')[0]));
    expect(pids).toContain(1);
    expect(Math.max(...pids)).toBeLessThan(50);
    expect(pids).not.toContain(process.pid);
    expect(out).not.toMatch(/vitest|postgres/);
    expect(lines.length).toBeLessThan(10);
  });

  it('has no network unless allowed: a server on the host loopback is out of reach', async () => {
    const get = `exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3`;
    const closed = await run(get);
    expect(closed).not.toContain('hello from the host');
    expect(closed).toMatch(/Connection refused|Network is unreachable/);
    const open = await run(get, { sandbox: { ...sandbox, network: true } });
    expect(open).toContain('hello from the host');
  });

  it('gets the variables passed to it by name', async () => {
    const out = await run('echo "[$MY_SETTING] [$OPENAI_API_KEY]"', {
      sandbox: { ...sandbox, passEnv: { MY_SETTING: 'passed value' } },
    });
    expect(out).toContain('[passed value] []');
  });

  it('is read-only for a read-only profile', async () => {
    writeFileSync(path.join(checkout, 'a.txt'), 'readable\n');
    const tools = toolsForProfile('explore', checkout, { bash: { sandbox } });
    if (!tools.ok) throw new Error(tools.error);
    const bash = tools.tools.find((t) => t.spec.name === 'bash');
    expect(bash).toBeDefined();
    const result = await bash!.run(
      { command: 'cat a.txt; echo changed > a.txt; touch b.txt; echo done' },
      {},
    );
    expect(result.content).toContain('readable');
    expect(result.content).toMatch(/Read-only file system/);
    expect(readFileSync(path.join(checkout, 'a.txt'), 'utf8')).toBe('readable\n');
    expect(existsSync(path.join(checkout, 'b.txt'))).toBe(false);
    // Without a sandbox a read-only profile has no bash at all.
    const plain = toolsForProfile('explore', checkout);
    expect(plain.ok && plain.tools.map((t) => t.spec.name)).not.toContain('bash');
  });

  it('runs git, node and sh from the read-only system; git reads its worktree, cannot repoint it', async () => {
    const hub = path.join(state, 'hub.git');
    const git = (cwd: string, ...args: string[]) =>
      execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@t', ...args], { cwd, encoding: 'utf8' });
    const seed = dirs.make('colony-sandbox-seed-');
    git(seed, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(seed, 'f.txt'), 'one\n');
    git(seed, 'add', '-A');
    git(seed, 'commit', '-q', '-m', 'first');
    git(state, 'clone', '-q', '--bare', seed, hub);
    const worktree = path.join(dirs.make('colony-sandbox-wt-'), 'agent');
    git(hub, 'worktree', 'add', '-q', '-b', 'agent/a', worktree, 'main');
    writeFileSync(path.join(worktree, 'f.txt'), 'two\n');
    const out = await run(
      [
        'git log --format=%s',
        'git status --short',
        'node -e "console.log(1 + 1)"',
        'sh -c "echo sh works"',
        'echo "gitdir: /elsewhere" > .git',
        'git add f.txt 2>&1 | head -1',
        'echo done',
      ].join('; '),
      { root: worktree },
    );
    expect(out).toMatch(/^first\n M f\.txt\n/);
    expect(out).toContain('2\nsh works');
    expect(out).toMatch(/\.git: Read-only file system/);
    expect(out).toMatch(/index\.lock': Read-only file system/);
    expect(out).toContain('done');
    expect(readFileSync(path.join(worktree, '.git'), 'utf8')).toContain(hub);
    // The hub is read-only inside: nothing was added to it.
    expect(git(worktree, 'status', '--short')).toBe(' M f.txt\n');
  });
});

function restore(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}
