/**
 * Per-process CPU and memory from Linux /proc, for benchmark figures that span several processes
 * (this Node process, the Postgres server and its backends, the fake provider).
 */
import { readdirSync, readFileSync } from 'node:fs';

/** USER_HZ on Linux: /proc CPU times are in ticks of 10 ms. */
const TICK_MS = 10;
const PAGE_BYTES = 4096;

export interface ProcStat {
  pid: number;
  ppid: number;
  comm: string;
  /** utime + stime of the process itself, in ms. */
  cpuMs: number;
  /** cutime + cstime: CPU of children it has reaped (exited backends), in ms. */
  reapedChildrenCpuMs: number;
  rssBytes: number;
}

export function readProcStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // gone, or no /proc
  }
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  // Fields after "(comm) ": state(3) ppid(4) … utime(14) stime(15) cutime(16) cstime(17) … rss(24).
  const f = text.slice(close + 2).split(' ');
  const at = (field: number): number => Number(f[field - 3]);
  return {
    pid,
    ppid: at(4),
    comm,
    cpuMs: (at(14) + at(15)) * TICK_MS,
    reapedChildrenCpuMs: (at(16) + at(17)) * TICK_MS,
    rssBytes: at(24) * PAGE_BYTES,
  };
}

/** Every live process's stat (one pass over /proc). */
export function allProcStats(): ProcStat[] {
  const stats: ProcStat[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return stats;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) < 48 || entry.charCodeAt(0) > 57) continue;
    const stat = readProcStat(Number(entry));
    if (stat) stats.push(stat);
  }
  return stats;
}

/** A process and its direct children (a Postgres postmaster and its backends). */
export function withChildren(root: number, stats: readonly ProcStat[] = allProcStats()): ProcStat[] {
  return stats.filter((s) => s.pid === root || s.ppid === root);
}

/**
 * CPU ms used so far by a process tree of depth one: the root's own and reaped children's CPU plus
 * the live children's. Differences of two readings give the tree's CPU over an interval.
 */
export function treeCpuMs(root: number, stats: readonly ProcStat[] = allProcStats()): number {
  let ms = 0;
  for (const s of withChildren(root, stats)) {
    ms += s.cpuMs;
    if (s.pid === root) ms += s.reapedChildrenCpuMs;
  }
  return ms;
}

/**
 * The direct children of `pid` from /proc/<pid>/task/<tid>/children (every thread's: a child belongs
 * to the thread that forked it), or null where the kernel has no such file.
 */
export function childPids(pid: number): number[] | null {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const tid of tasks) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' && tid === String(pid)) return null;
      continue;
    }
    for (const word of text.split(' ')) if (word) children.push(Number(word));
  }
  return children;
}

/**
 * A root process and its direct children, the children found again at most every `rescanMs`; in
 * between only the known pids are read. Children come from the roots' own `children` files: a scan
 * of all of /proc read thousands of files while a 1,000-peer run had its git processes (15 s of that
 * run's event loop, in the measured process); the scan is the fallback.
 */
export function cachedTree(root: number | number[], rescanMs = 1000): () => ProcStat[] {
  const roots = Array.isArray(root) ? root : [root];
  let pids: number[] = [];
  let scannedAt = -Infinity;
  return () => {
    const now = performance.now();
    if (now - scannedAt >= rescanMs) {
      scannedAt = now;
      const children = roots.map(childPids);
      if (children.every((list) => list !== null)) {
        pids = [...new Set([...roots, ...children.flatMap((list) => list ?? [])])];
      } else {
        const all = allProcStats();
        const tree = roots.flatMap((r) => withChildren(r, all));
        pids = [...new Set(tree.map((s) => s.pid))];
        return tree;
      }
    }
    const stats: ProcStat[] = [];
    for (const pid of pids) {
      const stat = readProcStat(pid);
      if (stat) stats.push(stat);
    }
    return stats;
  };
}

/**
 * Samples the summed RSS of a set of processes periodically and keeps the peak. `pids` is asked
 * again at every sample, so processes that appear later (new backends) are counted.
 */
export class RssSampler {
  peakBytes = 0;
  /** The peak of each process on its own (they need not peak at the same time). */
  readonly peakByPid = new Map<number, number>();
  /** With a `groupOf`: the peak of each group's summed RSS (e.g. owner, postgres, workers). */
  readonly peakByGroup = new Map<string, number>();
  /** With a `groupOf`: the most processes each group had at one sample (e.g. Postgres backends). */
  readonly mostProcsByGroup = new Map<string, number>();
  samples = 0;
  readonly seen = new Map<number, string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly pids: () => ProcStat[],
    private readonly groupOf?: (stat: ProcStat) => string,
  ) {}

  start(intervalMs: number): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.sample();
  }

  sample(): void {
    let bytes = 0;
    const groups = new Map<string, number>();
    const counts = new Map<string, number>();
    for (const s of this.pids()) {
      bytes += s.rssBytes;
      this.seen.set(s.pid, s.comm);
      if (s.rssBytes > (this.peakByPid.get(s.pid) ?? 0)) this.peakByPid.set(s.pid, s.rssBytes);
      if (this.groupOf) {
        const group = this.groupOf(s);
        groups.set(group, (groups.get(group) ?? 0) + s.rssBytes);
        counts.set(group, (counts.get(group) ?? 0) + 1);
      }
    }
    for (const [group, count] of counts)
      if (count > (this.mostProcsByGroup.get(group) ?? 0)) this.mostProcsByGroup.set(group, count);
    for (const [group, sum] of groups)
      if (sum > (this.peakByGroup.get(group) ?? 0)) this.peakByGroup.set(group, sum);
    this.samples++;
    if (bytes > this.peakBytes) this.peakBytes = bytes;
  }
}
