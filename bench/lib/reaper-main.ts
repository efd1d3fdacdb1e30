/**
 * The benchmark's reaper (bench/lib/cleanup.ts starts it): a detached process that learns, one JSON
 * line at a time on stdin, which processes and folders the benchmark made and has not cleaned up yet.
 * When its stdin ends — the benchmark finished, failed, was interrupted or killed with SIGKILL — it
 * stops what is still registered (a pid only while its start time is the one registered: never a
 * reused pid), escalates to SIGKILL after 5 s, then removes the folders.
 *
 * Lines: {"op":"kill","pid":N,"signal":"SIGTERM","group":true,"start":"…"} | {"op":"forget","pid":N}
 *        {"op":"rm","path":"…"} | {"op":"keep","path":"…"}
 */
import { readFileSync, rmSync } from 'node:fs';

interface Watched {
  pid: number;
  signal: NodeJS.Signals;
  group: boolean;
  start: string;
}

const watched = new Map<number, Watched>();
const folders = new Set<string>();

/** Field 22 of /proc/PID/stat (start time in ticks since boot), or null when the process is gone. */
function startTime(pid: number): string | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

const alive = (w: Watched) => startTime(w.pid) === w.start;

function signal(w: Watched, sig: NodeJS.Signals): void {
  if (!alive(w)) return;
  try {
    process.kill(w.group ? -w.pid : w.pid, sig);
  } catch {
    try {
      process.kill(w.pid, sig);
    } catch {
      // gone
    }
  }
}

function handle(line: string): void {
  let msg: {
    op?: string;
    pid?: number;
    signal?: NodeJS.Signals;
    group?: boolean;
    start?: string;
    path?: string;
  };
  try {
    msg = JSON.parse(line);
  } catch {
    return;
  }
  if (msg.op === 'kill' && msg.pid && msg.start)
    watched.set(msg.pid, {
      pid: msg.pid,
      signal: msg.signal ?? 'SIGTERM',
      group: !!msg.group,
      start: msg.start,
    });
  else if (msg.op === 'forget' && msg.pid) watched.delete(msg.pid);
  else if (msg.op === 'rm' && msg.path) folders.add(msg.path);
  else if (msg.op === 'keep' && msg.path) folders.delete(msg.path);
}

let reaping = false;
async function reap(): Promise<void> {
  if (reaping) return;
  reaping = true;
  const left = [...watched.values()];
  for (const w of left) signal(w, w.signal);
  const until = Date.now() + 5000;
  while (left.some(alive) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  for (const w of left) signal(w, 'SIGKILL');
  while (left.some(alive) && Date.now() < until + 5000) await new Promise((r) => setTimeout(r, 100));
  for (const path of folders) rmSync(path, { recursive: true, force: true });
  process.exit(0);
}

// Interruptions are the benchmark's to handle (it cleans up and then closes our stdin); a SIGTERM
// aimed at this process itself reaps at once.
for (const sig of ['SIGINT', 'SIGHUP'] as const) process.on(sig, () => {});
process.on('SIGTERM', () => void reap());
let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffered += chunk;
  let newline = buffered.indexOf('\n');
  while (newline >= 0) {
    handle(buffered.slice(0, newline));
    buffered = buffered.slice(newline + 1);
    newline = buffered.indexOf('\n');
  }
});
process.stdin.on('end', () => void reap());
process.stdin.on('error', () => void reap());
