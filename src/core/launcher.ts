/**
 * Short-lived commands (git, mostly) started by small helper processes instead of by Colony's own.
 *
 * Why: Node's `spawn` forks the calling process synchronously, on the event loop, and the cost of a
 * fork grows with the caller's memory. A 1,000-peer run's process (~900 MB) spent 270 s of its 393 s
 * inside `spawn` (CPU profile, `npm run bench -- peers --cpu-prof`): ~15,000 git calls at ~18 ms of
 * blocked event loop each under load, during which no model response, event or tool result moved. A
 * launcher is a bare Node process (~40 MB) that runs the commands it is sent over IPC and answers
 * with their exit and output; Colony's event loop only writes and reads messages. Two launchers
 * (one per core of the machines we measure on) share the work by what each has in flight.
 *
 * Long-lived processes and streamed pipes (cat-file --batch, pack-objects | unpack-objects, the
 * sandboxed bash tool with its watchdog) are spawned directly as before. `COLONY_DIRECT_SPAWN=1`
 * turns launchers off (every command spawned by this process) to compare.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface LaunchOptions {
  cwd: string;
  env: Record<string, string>;
  /** Written to the command's stdin, which is then closed (no input: closed at once). */
  input?: string | Buffer;
  /** Killed (SIGTERM) after this long. */
  timeoutMs?: number;
  /** stdout beyond this kills the command (`overflow`). */
  maxBuffer?: number;
}

export interface LaunchResult {
  /** Exit code; null when it could not start or was killed. */
  code: number | null;
  signal: string | null;
  stdout: Buffer;
  stderr: Buffer;
  /** Why it did not run or was cut short (spawn error, time-out, output limit, launcher gone). */
  error?: string;
  timedOut: boolean;
}

const LAUNCHERS = 2;
const DEFAULT_MAX_BUFFER = 64 * 1024 * 1024;

/** The launcher's program (plain JS, so it runs from the sources under test and from dist alike). */
const LAUNCHER_SOURCE = `
const { spawn } = require('node:child_process');
process.on('disconnect', () => process.exit(0));
process.on('message', (m) => {
  let done = false;
  const answer = (r) => { if (done) return; done = true; clearTimeout(timer); process.send({ id: m.id, ...r }); };
  let child;
  try {
    child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    answer({ code: null, signal: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), error: String(e && e.message), timedOut: false });
    return;
  }
  const out = []; const err = []; let outLen = 0; let errLen = 0; let timedOut = false; let overflow = false;
  const timer = m.timeoutMs ? setTimeout(() => { timedOut = true; child.kill('SIGTERM'); }, m.timeoutMs) : undefined;
  child.stdout.on('data', (c) => { outLen += c.length; if (outLen > m.maxBuffer) { overflow = true; child.kill('SIGTERM'); } else out.push(c); });
  child.stderr.on('data', (c) => { errLen += c.length; if (errLen <= m.maxBuffer) err.push(c); });
  child.stdin.on('error', () => {});
  child.on('error', (e) => answer({ code: null, signal: null, stdout: Buffer.concat(out), stderr: Buffer.concat(err), error: e.message, timedOut: false }));
  child.on('close', (code, signal) => answer({
    code: timedOut || overflow ? null : code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err), timedOut,
    error: timedOut ? 'timed out after ' + m.timeoutMs + ' ms' : overflow ? 'output beyond ' + m.maxBuffer + ' bytes' : undefined,
  }));
  if (m.input !== undefined) child.stdin.end(Buffer.from(m.input)); else child.stdin.end();
});
`;

interface Pending {
  resolve: (result: LaunchResult) => void;
}

class Launcher {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  get inFlight(): number {
    return this.pending.size;
  }

  run(file: string, args: string[], options: LaunchOptions): Promise<LaunchResult> {
    const child = this.process();
    if (child === null) return direct(file, args, options);
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (this.pending.size === 0) this.ref(child, true);
      this.pending.set(id, { resolve });
      const input = options.input === undefined ? undefined : Buffer.from(options.input);
      child.send(
        {
          id,
          file,
          args,
          cwd: options.cwd,
          env: options.env,
          input,
          timeoutMs: options.timeoutMs,
          maxBuffer: options.maxBuffer ?? DEFAULT_MAX_BUFFER,
        },
        (error) => {
          if (error) this.settle(id, gone(`could not reach the launcher: ${error.message}`));
        },
      );
    });
  }

  private process(): ChildProcess | null {
    if (this.child) return this.child;
    let child: ChildProcess;
    try {
      child = spawn(process.execPath, ['-e', LAUNCHER_SOURCE], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        serialization: 'advanced',
        env: { PATH: process.env.PATH ?? '' },
      });
    } catch {
      return null;
    }
    this.child = child;
    child.on('message', (message: LaunchResult & { id: number }) => {
      const { id, ...result } = message;
      this.settle(id, {
        ...result,
        // Structured clone hands Buffers over as Uint8Arrays.
        stdout: Buffer.from(result.stdout),
        stderr: Buffer.from(result.stderr),
      });
    });
    const lost = () => {
      if (this.child === child) this.child = null;
      for (const id of [...this.pending.keys()]) this.settle(id, gone('the launcher process exited'));
    };
    child.on('exit', lost);
    child.on('error', lost);
    this.ref(child, false);
    return child;
  }

  private settle(id: number, result: LaunchResult): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (this.pending.size === 0 && this.child) this.ref(this.child, false);
    pending.resolve(result);
  }

  /** An idle launcher does not keep Colony's process alive; one with commands in flight does. */
  private ref(child: ChildProcess, on: boolean): void {
    const channel = child.channel as { ref?(): void; unref?(): void } | undefined;
    if (on) {
      child.ref();
      channel?.ref?.();
    } else {
      child.unref();
      channel?.unref?.();
    }
  }
}

const launchers = Array.from({ length: LAUNCHERS }, () => new Launcher());

/** Runs `file args` to its end through a launcher (or directly when launchers are off). */
export function launch(file: string, args: string[], options: LaunchOptions): Promise<LaunchResult> {
  if (process.env.COLONY_DIRECT_SPAWN === '1') return direct(file, args, options);
  let best = launchers[0] as Launcher;
  for (const launcher of launchers) if (launcher.inFlight < best.inFlight) best = launcher;
  return best.run(file, args, options);
}

function gone(error: string): LaunchResult {
  return {
    code: null,
    signal: null,
    stdout: Buffer.alloc(0),
    stderr: Buffer.alloc(0),
    error,
    timedOut: false,
  };
}

/** The same contract, spawned by this process. */
function direct(file: string, args: string[], options: LaunchOptions): Promise<LaunchResult> {
  return new Promise((resolve) => {
    const maxBuffer = options.maxBuffer ?? DEFAULT_MAX_BUFFER;
    let done = false;
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outLen = 0;
    let timedOut = false;
    let overflow = false;
    const finish = (result: Omit<LaunchResult, 'stdout' | 'stderr'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ ...result, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    };
    const child = spawn(file, args, { cwd: options.cwd, env: options.env });
    const timer = options.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
        }, options.timeoutMs)
      : undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      outLen += chunk.length;
      if (outLen > maxBuffer) {
        overflow = true;
        child.kill('SIGTERM');
      } else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.stdin.on('error', () => {});
    child.on('error', (error) => finish({ code: null, signal: null, error: error.message, timedOut: false }));
    child.on('close', (code, signal) =>
      finish({
        code: timedOut || overflow ? null : code,
        signal,
        timedOut,
        ...(timedOut
          ? { error: `timed out after ${options.timeoutMs} ms` }
          : overflow
            ? { error: `output beyond ${maxBuffer} bytes` }
            : {}),
      }),
    );
    if (options.input !== undefined) child.stdin.end(options.input);
    else child.stdin.end();
  });
}
