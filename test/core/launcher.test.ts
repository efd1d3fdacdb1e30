/** Commands run through the launcher processes keep the contract of a direct spawn. */
import { execFileSync } from 'node:child_process';
import { getPriority } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BACKGROUND_NICE,
  launch,
  launchPipe,
  launchStream,
  type StreamHandlers,
} from '../../src/core/launcher.js';

const env = { PATH: process.env.PATH ?? '' };
const cwd = process.cwd();

describe.each([
  ['through launchers', '0'],
  ['spawned directly', '1'],
])('launch, %s', (_label, direct) => {
  const run = async (file: string, args: string[], options: Partial<Parameters<typeof launch>[2]> = {}) => {
    const before = process.env.COLONY_DIRECT_SPAWN;
    process.env.COLONY_DIRECT_SPAWN = direct;
    try {
      return await launch(file, args, { cwd, env, ...options });
    } finally {
      if (before === undefined) delete process.env.COLONY_DIRECT_SPAWN;
      else process.env.COLONY_DIRECT_SPAWN = before;
    }
  };

  it('returns exit code, stdout and stderr as bytes, in the given folder and environment', async () => {
    const result = await run('sh', ['-c', 'pwd; echo "$ONLY_HERE"; echo oops >&2; exit 3'], {
      cwd: '/tmp',
      env: { ...env, ONLY_HERE: 'here' },
    });
    expect(result.code).toBe(3);
    expect(result.stdout.toString()).toBe('/tmp\nhere\n');
    expect(result.stderr.toString()).toBe('oops\n');
    expect(result.error).toBeUndefined();
  });

  it('passes input on stdin, binary intact, and closes stdin when there is none', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 10, 0]);
    const echoed = await run('cat', [], { input: bytes });
    expect(echoed.code).toBe(0);
    expect(Buffer.compare(echoed.stdout, bytes)).toBe(0);
    const none = await run('cat', []);
    expect(none).toMatchObject({ code: 0, timedOut: false });
    expect(none.stdout.length).toBe(0);
  });

  it('reports a missing program, a time-out and an output limit as errors', async () => {
    const missing = await run('colony-no-such-program', []);
    expect(missing.code).toBeNull();
    expect(missing.error).toContain('ENOENT');
    const slow = await run('sleep', ['5'], { timeoutMs: 200 });
    expect(slow).toMatchObject({ code: null, timedOut: true });
    expect(slow.error).toContain('timed out after 200 ms');
    const big = await run('head', ['-c', '100000', '/dev/zero'], { maxBuffer: 1000 });
    expect(big.code).toBeNull();
    expect(big.error).toContain('output beyond 1000 bytes');
  });

  it('pipes one command into another, and names the side that failed first', async () => {
    const pipe = async (from: string, to: string) => {
      const before = process.env.COLONY_DIRECT_SPAWN;
      process.env.COLONY_DIRECT_SPAWN = direct;
      try {
        return await launchPipe(
          { file: 'sh', args: ['-c', from], cwd, env },
          { file: 'sh', args: ['-c', to], cwd, env },
          { input: 'in\n' },
        );
      } finally {
        if (before === undefined) delete process.env.COLONY_DIRECT_SPAWN;
        else process.env.COLONY_DIRECT_SPAWN = before;
      }
    };
    const good = await pipe('cat; echo more', 'tr a-z A-Z');
    expect(good.failed).toBeUndefined();
    expect(good.to.stdout.toString()).toBe('IN\nMORE\n');
    const consumer = await pipe('yes', 'head -c 10 >/dev/null; echo refused >&2; exit 2');
    expect(consumer.failed).toBe('to');
    expect(consumer.to.stderr.toString()).toBe('refused\n');
    const producer = await pipe('echo broken >&2; exit 3', 'cat');
    expect(producer.failed).toBe('from');
    expect(producer.from).toMatchObject({ code: 3 });
    expect(producer.from.stderr.toString()).toBe('broken\n');
  });

  /** A streamed command's events in order, until it closed (or failed to start). */
  const stream = (
    file: string,
    args: string[],
    steer: (command: ReturnType<typeof launchStream>) => void = () => {},
  ) =>
    new Promise<string[]>((resolve) => {
      const before = process.env.COLONY_DIRECT_SPAWN;
      process.env.COLONY_DIRECT_SPAWN = direct;
      const seen: string[] = [];
      const handlers: StreamHandlers = {
        data: (chunk) => seen.push(`data ${chunk}`),
        exit: (code, signal) => seen.push(`exit ${code} ${signal}`),
        close: () => resolve([...seen, 'close']),
        error: (message) => {
          seen.push(`error ${message.includes('ENOENT') ? 'ENOENT' : message}`);
          resolve(seen);
        },
      };
      try {
        steer(launchStream(file, args, { cwd: '/tmp', env }, handlers));
      } finally {
        if (before === undefined) delete process.env.COLONY_DIRECT_SPAWN;
        else process.env.COLONY_DIRECT_SPAWN = before;
      }
    });

  it('streams a command: its output as it comes, in its folder, then its exit and close', async () => {
    const events = await stream('sh', ['-c', 'pwd; echo oops >&2; exit 4']);
    expect(events.filter((e) => e.startsWith('data')).join('')).toContain('data /tmp\n');
    expect(events.join('|')).toContain('data oops\n');
    expect(events.slice(-2)).toEqual(['exit 4 null', 'close']);
    expect(await stream('colony-no-such-program', [])).toEqual(['error ENOENT']);
  });

  it("kills a streamed command's whole process group, and leaves its stdin open until then", async () => {
    const marker = `/tmp/colony-launcher-stream-${process.pid}-${direct}`;
    // A background child in the same group, and a read of stdin that would end at EOF: only the kill ends them.
    const events = await stream(
      'sh',
      ['-c', `(sleep 30; touch ${marker}) & read line; echo "stdin closed"; wait`],
      (command) => setTimeout(() => command.kill(), 300),
    );
    expect(events).toEqual(['exit null SIGKILL', 'close']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(
      // "[s]leep": the pattern must not match pgrep's own shell.
      execFileSync('sh', ['-c', `pgrep -f "[s]leep 30; touch ${marker}" || true`], { encoding: 'utf8' }),
    ).toBe('');
  });

  it('runs many commands at once and answers each with its own output', async () => {
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => run('sh', ['-c', `echo ${i}`])));
    expect(results.map((r) => r.stdout.toString().trim())).toEqual(
      Array.from({ length: 100 }, (_, i) => String(i)),
    );
  });
});

describe('lanes', () => {
  // Field 19 of /proc/<pid>/stat is the niceness; `cut` reads its own (inherited from its launcher).
  const NICE = ['-d', ' ', '-f', '19', '/proc/self/stat'];
  const own = getPriority();
  const background = Math.max(own, BACKGROUND_NICE);

  it("runs an agent's work (background) at a lower priority, everything else at Colony's own", async () => {
    const normal = await launch('cut', NICE, { cwd, env });
    const low = await launch('cut', NICE, { cwd, env, background: true });
    expect(Number(normal.stdout.toString())).toBe(own);
    expect(Number(low.stdout.toString())).toBe(background);
    expect(background).toBeGreaterThan(own);
  });

  it('streams and pipes take their lane too', async () => {
    const streamed = await new Promise<string>((resolve) => {
      let out = '';
      launchStream(
        'cut',
        NICE,
        { cwd, env, background: true },
        {
          data: (chunk) => {
            out += chunk;
          },
          exit: () => {},
          close: () => resolve(out),
          error: () => resolve('error'),
        },
      );
    });
    expect(Number(streamed)).toBe(background);
    const piped = await launchPipe(
      { file: 'cut', args: NICE, cwd, env },
      { file: 'cat', args: [], cwd, env },
      { background: true },
    );
    expect(Number(piped.to.stdout.toString())).toBe(background);
  });
});

describe('launcher processes', () => {
  it('an idle launcher does not keep the process alive, and a killed one is replaced', () => {
    // A child process (the built dist: `npm test` builds it first): one command through a launcher, the launcher killed mid-command (that command
    // fails with a clear error), another command (a new launcher), then the process must exit by
    // itself.
    const script = `
      import { launch } from ${JSON.stringify(path.resolve('dist/src/core/launcher.js'))};
      import { execFileSync } from 'node:child_process';
      const env = { PATH: process.env.PATH };
      const first = await launch('sh', ['-c', 'echo first'], { cwd: '/', env });
      const pids = () => execFileSync('pgrep', ['-P', String(process.pid), '-x', 'node'], { encoding: 'utf8' }).trim().split('\\n');
      const slow = launch('sleep', ['5'], { cwd: '/', env });
      for (const pid of pids()) process.kill(Number(pid), 'SIGKILL');
      const killed = await slow;
      const after = await launch('sh', ['-c', 'echo after'], { cwd: '/', env });
      console.log(JSON.stringify({ first: first.stdout.toString(), killed: killed.error, after: after.stdout.toString() }));
    `;
    const started = Date.now();
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(JSON.parse(out)).toEqual({
      first: 'first\n',
      killed: 'the launcher process exited',
      after: 'after\n',
    });
    // It exited on its own, long before the killed launcher's sleep would have ended.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
