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
 * Pipelines (`launchPipe`: pack-objects | unpack-objects) stream inside the launcher too, and so do
 * streamed commands (`launchStream`: the bash tool) — started in a process group of their own, their
 * output sent back as it comes, killed on request; their stdin stays open to the launcher, so they
 * see EOF when it ends with Colony (the bash tool's watchdog). A 300-peer claims run spent 31 s of
 * its event loop spawning bash commands before they went this way (bench/README.md, issue 29).
 *
 * Two lanes (`background`): one agent's own work — git in its repository, its bash commands — goes to
 * launchers that run at a lower CPU priority (nice 10; their commands inherit it), everything else
 * (the integration queue's git in the hub, Colony's other git) to launchers at normal priority. With
 * hundreds of peers the two cores are saturated by work that runs in parallel, while the integration
 * queue — one batch at a time, the swarm's critical path — waited its turn: at 300 peers its batches
 * took 5–48 s to build (bench/README.md, issue 29). Priority only orders who runs first; on an idle
 * machine nothing changes.
 *
 * Long-lived processes (cat-file --batch, http-backend) are spawned directly as before. `COLONY_DIRECT_SPAWN=1` runs the same runners in this process instead
 * (every command spawned by it), to compare.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';

export interface LaunchOptions {
  cwd: string;
  env: Record<string, string>;
  /** Written to the command's stdin, which is then closed (no input: closed at once). */
  input?: string | Buffer;
  /** Killed (SIGTERM) after this long. */
  timeoutMs?: number;
  /** stdout beyond this kills the command (`overflow`). */
  maxBuffer?: number;
  /** One agent's own work (its repository's git, its commands): the lower-priority lane. */
  background?: boolean;
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
/** The least niceness of the background lane's launchers (and so of their commands). */
export const BACKGROUND_NICE = 10;
const DEFAULT_MAX_BUFFER = 64 * 1024 * 1024;

/**
 * What runs a command and a pipeline, as plain JS: the launcher's program, and in this process when
 * launchers are off (one implementation either way). `answer` is called once.
 */
const RUNNERS = `
const { spawn } = require('node:child_process');
function collect(child, m, keepStdout) {
  const out = []; const err = []; let outLen = 0;
  const state = { overflow: false, timedOut: false };
  if (keepStdout) child.stdout.on('data', (c) => { outLen += c.length; if (outLen > m.maxBuffer) { state.overflow = true; child.kill('SIGTERM'); } else out.push(c); });
  child.stderr.on('data', (c) => { if (err.length < 1000) err.push(c); });
  child.stdin.on('error', () => {});
  return new Promise((resolve) => {
    let done = false;
    const end = (r) => { if (!done) { done = true; resolve({ ...r, stdout: Buffer.concat(out), stderr: Buffer.concat(err), timedOut: state.timedOut }); } };
    child.on('error', (e) => end({ code: null, signal: null, error: e.message }));
    child.on('close', (code, signal) => end({
      code: state.timedOut || state.overflow ? null : code, signal,
      error: state.timedOut ? 'timed out after ' + m.timeoutMs + ' ms' : state.overflow ? 'output beyond ' + m.maxBuffer + ' bytes' : undefined,
    }));
    child.timeoutState = state;
  });
}
function start(c) {
  return spawn(c.file, c.args, { cwd: c.cwd, env: c.env, stdio: ['pipe', 'pipe', 'pipe'] });
}
function withTimeout(m, children) {
  if (!m.timeoutMs) return () => {};
  const timer = setTimeout(() => { for (const c of children) { c.timeoutState.timedOut = true; c.kill('SIGTERM'); } }, m.timeoutMs);
  return () => clearTimeout(timer);
}
function runOne(m, answer) {
  let child;
  try { child = start(m); } catch (e) { answer({ code: null, signal: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), error: String(e && e.message), timedOut: false }); return; }
  const result = collect(child, m, true);
  const stop = withTimeout(m, [child]);
  if (m.input !== undefined && m.input !== null) child.stdin.end(Buffer.from(m.input)); else child.stdin.end();
  result.then((r) => { stop(); answer(r); });
}
function runPipe(m, answer) {
  let from; let to;
  try { from = start(m.from); to = start(m.to); } catch (e) {
    if (from) from.kill();
    const r = { code: null, signal: null, stdout: Buffer.alloc(0), stderr: Buffer.alloc(0), error: String(e && e.message), timedOut: false };
    answer({ from: r, to: r, failed: 'from' }); return;
  }
  from.stdout.pipe(to.stdin);
  const results = [collect(from, m, false), collect(to, m, true)];
  const stop = withTimeout(m, [from, to]);
  let failed;
  // The side that fails first ends the other: a writer whose reader is gone would block on a full
  // pipe, a reader fed half a stream is of no use.
  results[0].then((r) => { if (r.code !== 0 && !failed) { failed = 'from'; to.stdin.destroy(); to.kill(); } });
  results[1].then((r) => { if (r.code !== 0 && !failed) { failed = 'to'; from.stdout.destroy(); from.kill(); } });
  if (m.input !== undefined && m.input !== null) from.stdin.end(Buffer.from(m.input)); else from.stdin.end();
  Promise.all(results).then(([a, b]) => { stop(); answer({ from: a, to: b, failed }); });
}
const streams = new Map();
function killGroup(pid) { if (pid === undefined) return; try { process.kill(-pid, 'SIGKILL'); } catch (e) {} }
function runStream(m, emit) {
  let child;
  try { child = spawn(m.file, m.args, { cwd: m.cwd, env: m.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] }); }
  catch (e) { emit({ event: 'error', message: String(e && e.message) }); emit({ event: 'close' }); return; }
  streams.set(m.stream, child);
  child.stdin.on('error', () => {});
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk) => emit({ event: 'data', chunk }));
  child.stderr.on('data', (chunk) => emit({ event: 'data', chunk }));
  child.on('error', (e) => emit({ event: 'error', message: e.message }));
  child.on('exit', (code, signal) => emit({ event: 'exit', code, signal }));
  child.on('close', () => { streams.delete(m.stream); emit({ event: 'close' }); });
}
function controlStream(m) {
  const child = streams.get(m.control);
  if (!child) return;
  if (m.action === 'kill') killGroup(child.pid);
  else { streams.delete(m.control); child.stdout.destroy(); child.stderr.destroy(); child.stdin.destroy(); }
}
`;

/** The launcher's program: the runners behind an IPC loop. */
const LAUNCHER_SOURCE = `${RUNNERS}
process.on('disconnect', () => process.exit(0));
process.on('message', (m) => {
  if (m.control !== undefined) return controlStream(m);
  if (m.stream !== undefined) return runStream(m, (e) => process.send({ stream: m.stream, ...e }));
  const answer = (r) => process.send({ id: m.id, result: r });
  if (m.from) runPipe(m, answer); else runOne(m, answer);
});
`;

type Runner = (message: object, answer: (result: unknown) => void) => void;
interface Runners {
  runOne: Runner;
  runPipe: Runner;
  runStream: (message: object, emit: (event: StreamEvent) => void) => void;
  controlStream: (message: object) => void;
}

let inProcess: Runners | null = null;
/** The runners in this process (COLONY_DIRECT_SPAWN=1, or no launcher could start). */
function runners(): Runners {
  inProcess ??= new Function('require', `${RUNNERS}\nreturn { runOne, runPipe, runStream, controlStream };`)(
    createRequire(import.meta.url),
  ) as Runners;
  return inProcess;
}

/** A command (`file`) or pipeline (`from`) message run by this process's own runners. */
function runHere<T>(message: Record<string, unknown>): Promise<T> {
  const run = message.from ? runners().runPipe : runners().runOne;
  return new Promise((resolve) => run(message, (result) => resolve(revive(result) as T)));
}

interface Pending {
  resolve: (result: unknown) => void;
  /** The answer when the launcher dies with this in flight. */
  lost: unknown;
}

class Launcher {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private readonly streams = new Map<number, StreamHandlers>();
  private nextId = 1;

  /** `nice`: the launcher lowers its own priority to at least this first (0: unchanged). */
  constructor(private readonly nice: number) {}

  get inFlight(): number {
    return this.pending.size + this.streams.size;
  }

  /** Starts a streamed command here; null when no launcher process could start. */
  stream(message: Record<string, unknown>, handlers: StreamHandlers): StreamedCommand | null {
    const child = this.process();
    if (child === null) return null;
    const id = this.nextId++;
    if (this.inFlight === 0) this.ref(child, true);
    this.streams.set(id, handlers);
    const control = (action: 'kill' | 'release') => {
      if (this.child === child && child.connected) child.send({ control: id, action }, () => {});
    };
    child.send({ stream: id, ...message }, (error) => {
      if (error) this.endStream(id, { event: 'error', message: LOST });
    });
    return {
      kill: () => control('kill'),
      release: () => {
        control('release');
        this.endStream(id, null);
      },
    };
  }

  /** Delivers a stream's event; its close (or a lost launcher) ends it. */
  private endStream(id: number, event: StreamEvent | null): void {
    const handlers = this.streams.get(id);
    if (!handlers) return;
    if (event) deliver(handlers, event);
    if (event === null || event.event === 'close' || event.message === LOST) {
      this.streams.delete(id);
      if (event?.message === LOST) handlers.close();
      if (this.inFlight === 0 && this.child) this.ref(this.child, false);
    }
  }

  /** Sends one command or pipeline message; resolves with the launcher's answer. */
  send<T>(message: Record<string, unknown>, lost: T): Promise<T> {
    const child = this.process();
    if (child === null) return runHere(message);
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (this.pending.size === 0) this.ref(child, true);
      this.pending.set(id, { resolve: resolve as (result: unknown) => void, lost });
      child.send({ id, ...message }, (error) => {
        if (error) this.settle(id, lost);
      });
    });
  }

  private process(): ChildProcess | null {
    if (this.child) return this.child;
    let child: ChildProcess;
    try {
      const source =
        this.nice > 0
          ? `try { const os = require('node:os'); if (os.getPriority() < ${this.nice}) os.setPriority(${this.nice}); } catch {}\n${LAUNCHER_SOURCE}`
          : LAUNCHER_SOURCE;
      child = spawn(process.execPath, ['-e', source], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        serialization: 'advanced',
        env: { PATH: process.env.PATH ?? '' },
      });
    } catch {
      return null;
    }
    this.child = child;
    child.on('message', (message: { id: number; result: unknown } | ({ stream: number } & StreamEvent)) => {
      if ('stream' in message) this.endStream(message.stream, message);
      else this.settle(message.id, revive(message.result));
    });
    const lost = () => {
      if (this.child === child) this.child = null;
      for (const [id, pending] of [...this.pending]) this.settle(id, pending.lost);
      for (const id of [...this.streams.keys()]) this.endStream(id, { event: 'error', message: LOST });
    };
    child.on('exit', lost);
    child.on('error', lost);
    this.ref(child, false);
    return child;
  }

  private settle(id: number, result: unknown): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    this.pending.delete(id);
    if (this.inFlight === 0 && this.child) this.ref(this.child, false);
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

const lanes = {
  normal: Array.from({ length: LAUNCHERS }, () => new Launcher(0)),
  background: Array.from({ length: LAUNCHERS }, () => new Launcher(BACKGROUND_NICE)),
};

/** The least busy launcher of the lane. */
function pick(background = false): Launcher {
  const launchers = background ? lanes.background : lanes.normal;
  let best = launchers[0] as Launcher;
  for (const launcher of launchers) if (launcher.inFlight < best.inFlight) best = launcher;
  return best;
}

const LOST = 'the launcher process exited';

/** Through the least busy launcher, or here when launchers are off; `lost` if its launcher dies. */
function dispatch<T>(message: Record<string, unknown>, lost: T, background = false): Promise<T> {
  return process.env.COLONY_DIRECT_SPAWN === '1' ? runHere(message) : pick(background).send(message, lost);
}

/** Runs `file args` to its end through a launcher (or in this process when launchers are off). */
export function launch(file: string, args: string[], options: LaunchOptions): Promise<LaunchResult> {
  return dispatch({ file, args, ...commandOptions(options) }, gone(LOST), options.background);
}

/** What a streamed command reports, in order: output as it comes, its exit, the close of its output. */
export type StreamEvent =
  | { event: 'data'; chunk: string; message?: undefined }
  | { event: 'exit'; code: number | null; signal: NodeJS.Signals | null; message?: undefined }
  | { event: 'close'; message?: undefined }
  /** It could not start, or its launcher died (then `close` follows at once). */
  | { event: 'error'; message: string };

export interface StreamHandlers {
  data(chunk: string): void;
  exit(code: number | null, signal: NodeJS.Signals | null): void;
  close(): void;
  error(message: string): void;
}

export interface StreamedCommand {
  /** SIGKILL to the command's whole process group. */
  kill(): void;
  /** Stop listening: its pipes are closed (a straggler outside its group may still hold them). */
  release(): void;
}

function deliver(handlers: StreamHandlers, event: StreamEvent): void {
  if (event.event === 'data') handlers.data(event.chunk);
  else if (event.event === 'exit') handlers.exit(event.code, event.signal);
  else if (event.event === 'close') handlers.close();
  else handlers.error(event.message);
}

let nextHereStream = 1;
/**
 * Starts `file args` in a process group of its own, stdin left open (EOF when the launcher, or
 * Colony, ends), its stdout and stderr delivered as text as they come. Through the least busy
 * launcher, or in this process when launchers are off.
 */
export function launchStream(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; background?: boolean },
  handlers: StreamHandlers,
): StreamedCommand {
  const message = { file, args, cwd: options.cwd, env: options.env };
  const viaLauncher =
    process.env.COLONY_DIRECT_SPAWN === '1' ? null : pick(options.background).stream(message, handlers);
  if (viaLauncher) return viaLauncher;
  const id = nextHereStream++;
  let released = false;
  runners().runStream({ stream: id, ...message }, (event) => {
    if (!released) deliver(handlers, event);
  });
  return {
    kill: () => runners().controlStream({ control: id, action: 'kill' }),
    release: () => {
      released = true;
      runners().controlStream({ control: id, action: 'release' });
    },
  };
}

export interface PipeCommand {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}

export interface PipeLaunchResult {
  from: LaunchResult;
  to: LaunchResult;
  /** The side that failed first (the other was then ended). */
  failed?: 'from' | 'to';
}

/** `from | to` without a shell, `input` on from's stdin, streamed inside the launcher; to's stdout kept. */
export function launchPipe(
  from: PipeCommand,
  to: PipeCommand,
  options: Omit<LaunchOptions, 'cwd' | 'env'>,
): Promise<PipeLaunchResult> {
  const lost = gone(LOST);
  const message = { from, to, ...commandOptions({ ...options, cwd: to.cwd, env: to.env }) };
  return dispatch<PipeLaunchResult>(message, { from: lost, to: lost, failed: 'from' }, options.background);
}

function commandOptions(options: LaunchOptions): Record<string, unknown> {
  return {
    cwd: options.cwd,
    env: options.env,
    input: options.input === undefined ? undefined : Buffer.from(options.input),
    timeoutMs: options.timeoutMs,
    maxBuffer: options.maxBuffer ?? DEFAULT_MAX_BUFFER,
  };
}

/** Structured clone hands Buffers over as Uint8Arrays: make them Buffers again, at any depth. */
function revive(value: unknown): unknown {
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) if (inner !== undefined) out[key] = revive(inner);
  return out;
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
