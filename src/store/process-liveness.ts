import { readFileSync } from 'node:fs';

/** Identity of a process: its pid plus, where /proc exists, its start time (guards against pid reuse). */
export interface ProcessIdentity {
  pid: number;
  start: string | null;
}

interface ProcStat {
  state: string;
  start: string;
  comm: string;
}

function readProcStat(pid: number): ProcStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Format: pid (comm) state ppid ... ; comm may contain spaces and parentheses, so split at the last ')'.
    const open = text.indexOf('(');
    const close = text.lastIndexOf(')');
    const rest = text.slice(close + 2).split(' ');
    // Fields after comm start at field 3 (state); starttime is field 22.
    return { comm: text.slice(open + 1, close), state: rest[0] ?? '?', start: rest[19] ?? '' };
  } catch {
    return null;
  }
}

export function processIdentity(pid: number = process.pid): ProcessIdentity {
  return { pid, start: readProcStat(pid)?.start ?? null };
}

/**
 * True when the process exists and is not a zombie; when `start` is given and /proc is readable, the
 * start time must match too (a reused pid is not the same process).
 */
export function isProcessAlive(pid: number, start: string | null = null): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const stat = readProcStat(pid);
  if (!stat) return true; // No /proc: trust kill(0).
  if (stat.state === 'Z' || stat.state === 'X') return false;
  return start === null || stat.start === start;
}

/** The process name (comm) where /proc tells it, else null. */
export function processName(pid: number): string | null {
  return readProcStat(pid)?.comm ?? null;
}

export function formatIdentity(id: ProcessIdentity): string {
  return `${id.pid} ${id.start ?? '-'}`;
}

export function parseIdentity(text: string): ProcessIdentity | null {
  const [pidText, start] = text.trim().split(/\s+/);
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  return { pid, start: start && start !== '-' ? start : null };
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocking sleep, only for the synchronous exit path. */
export function sleepSync(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
