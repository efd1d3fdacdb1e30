/**
 * One process of an external CLI: started with its adapter's launch, its stdout/stderr read as
 * signals (session, MCP failure, result), direct messages written to its stdin where it takes them,
 * killed on abort. What it ended with is plain data; drive.ts decides what it means (done, failed,
 * crashed and restarted).
 */
import { createInterface } from 'node:readline';
import type { Message } from '../model/types.js';
import type { CliLaunch, LineSignal } from './adapter.js';
import { killGroup, type LaunchPlace, startCli } from './launch.js';

const TAIL_BYTES = 4000;

export interface CliProcessEnd {
  /** Its exit code (a death by signal: 128 + nothing known, or the signal below). */
  code: number | null;
  /** The signal that ended it (outside the sandbox; inside, the forwarder reports 128). */
  signal: NodeJS.Signals | null;
  /** It could not start at all. */
  spawnError?: string;
  /** A signal of its output said it cannot work (its MCP connection is not up): it was killed. */
  failure: string | null;
  result: Extract<LineSignal, { kind: 'result' }> | null;
  sessionId: string | null;
  /** The last few KB of its output. */
  tail: string;
}

export interface CliProcessHooks {
  started(pid: number | undefined): Promise<void>;
  session(sessionId: string): Promise<void>;
  signal: AbortSignal;
  messages?: () => Promise<Message[]>;
  messagePollMs?: number;
}

export async function runCliProcess(
  launch: CliLaunch,
  place: LaunchPlace,
  hooks: CliProcessHooks,
): Promise<CliProcessEnd> {
  const child = startCli(launch, place);
  let tail = '';
  const keep = (chunk: string) => {
    tail = (tail + chunk).slice(-TAIL_BYTES);
  };
  let failure: string | null = null;
  let result: Extract<LineSignal, { kind: 'result' }> | null = null;
  let sessionId: string | null = null;
  const spawnError = new Promise<string>((resolve) => child.once('error', (e) => resolve(e.message)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : null), signal })),
  );
  await hooks.started(child.pid);

  const pending: Promise<void>[] = [];
  const lines = child.stdout ? createInterface({ input: child.stdout }) : null;
  const errorLines = child.stderr && launch.readErrorLine ? createInterface({ input: child.stderr }) : null;
  if (errorLines)
    errorLines.on('line', (line) => {
      keep(`${line}\n`);
      onSignal(launch.readErrorLine?.(line) ?? null);
    });
  else child.stderr?.setEncoding('utf8').on('data', keep);
  lines?.on('line', (line) => {
    if (!launch.readLine) return keep(`${line}\n`);
    onSignal(launch.readLine(line));
  });
  function onSignal(signal: LineSignal | null): void {
    if (!signal || signal.kind === 'activity') return;
    if (signal.kind === 'session') {
      sessionId = signal.sessionId;
      pending.push(hooks.session(signal.sessionId));
    } else if (signal.kind === 'fail') {
      failure ??= signal.reason;
      killGroup(child);
    } else if (signal.kind === 'result') {
      result = signal;
      keep(`${signal.text}\n`);
    }
    if (launch.endInputOn === signal.kind) child.stdin?.end();
  }
  child.stdin?.on('error', () => {});
  if (launch.input !== null) child.stdin?.write(launch.input);
  if (!launch.endInputOn) child.stdin?.end();

  const onAbort = () => {
    killGroup(child);
    setTimeout(() => killGroup(child, 'SIGKILL'), 5000).unref();
  };
  hooks.signal.addEventListener('abort', onAbort, { once: true });
  // Only a CLI that takes messages on its stdin gets them here; the others get them with their
  // next Colony tool result (direct-messages.ts).
  const poll =
    launch.messageLine && hooks.messages
      ? // Undelivered messages (the database away) stay unread: the next poll delivers them.
        setInterval(() => void deliver().catch(() => {}), hooks.messagePollMs ?? 1000)
      : null;
  let delivering = false;
  async function deliver(): Promise<void> {
    if (delivering || !hooks.messages || !launch.messageLine || child.stdin?.writableEnded) return;
    delivering = true;
    try {
      for (const message of await hooks.messages())
        if (message.role === 'user') child.stdin?.write(launch.messageLine(message.content));
    } finally {
      delivering = false;
    }
  }

  const ended = await Promise.race([exited, spawnError.then((error) => ({ error }))]);
  if (poll) clearInterval(poll);
  hooks.signal.removeEventListener('abort', onAbort);
  lines?.close();
  errorLines?.close();
  await Promise.all(pending);
  return {
    code: 'error' in ended ? null : ended.code,
    signal: 'error' in ended ? null : ended.signal,
    ...('error' in ended ? { spawnError: ended.error } : {}),
    failure,
    result,
    sessionId,
    tail,
  };
}

/**
 * A crash: the process died before it was done, and a restart may go on with its work. A death by
 * signal (or a code ≥ 128: a shell's or the sandbox forwarder's report of one), or for a CLI that
 * reports its end, an exit without its result. Not a crash: a failed start, a failure it reported,
 * an exit after its result, a plain non-zero exit of a command that reports nothing.
 */
export function isCrash(end: CliProcessEnd, launch: Pick<CliLaunch, 'reportsResult'>): boolean {
  if (end.spawnError !== undefined || end.failure !== null || end.result !== null) return false;
  if (end.signal !== null || (end.code !== null && end.code >= 128)) return true;
  return launch.reportsResult === true && end.code !== 0;
}
