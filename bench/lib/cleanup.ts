/**
 * Everything a benchmark starts is stopped at the end — on success, on an error, on Ctrl-C or
 * SIGTERM, and even when the benchmark itself is killed with SIGKILL:
 *
 * - `defer(name, fn)` pushes a clean-up step; `run()` runs the steps last-in first-out, each bounded
 *   in time, once. `main()`'s `finally` calls it; SIGINT/SIGTERM/SIGHUP call it and then exit.
 * - `guardProcess`/`guardFolder` also tell a detached reaper process (reaper-main.ts) about a child
 *   or a folder; when this process ends without having stopped it (SIGKILL, a crash in clean-up),
 *   the reaper's stdin closes and it kills the child's process group and removes the folder.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

interface Step {
  name: string;
  fn: () => Promise<void> | void;
}

const STEP_TIMEOUT_MS = 30_000;
const SIGNAL_CODES: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

function startTime(pid: number): string | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

export class BenchCleanup {
  private readonly steps: Step[] = [];
  private reaper: ChildProcess | null = null;
  private running: Promise<void> | null = null;
  private signalled = false;

  constructor(private readonly say: (line: string) => void = (line) => process.stderr.write(`${line}\n`)) {}

  /** The reaper's pid (a Node child of this process, not one of Colony's), once it runs. */
  get reaperPid(): number | null {
    return this.reaper?.pid ?? null;
  }

  /** Adds a clean-up step (run last-in first-out); the returned function removes it again. */
  defer(name: string, fn: () => Promise<void> | void): () => void {
    const step = { name, fn };
    this.steps.push(step);
    return () => {
      const i = this.steps.indexOf(step);
      if (i >= 0) this.steps.splice(i, 1);
    };
  }

  /**
   * Has the reaper stop this process (its whole group when `group`: a child spawned `detached`) if
   * this benchmark ends without doing so. Returns the function that forgets it once it is stopped.
   */
  guardProcess(pid: number, options: { signal?: NodeJS.Signals; group?: boolean } = {}): () => void {
    const start = startTime(pid);
    if (start === null) return () => {};
    this.tell({ op: 'kill', pid, signal: options.signal ?? 'SIGTERM', group: !!options.group, start });
    return () => this.tell({ op: 'forget', pid });
  }

  /** Has the reaper remove this folder if this benchmark ends without doing so. */
  guardFolder(path: string): () => void {
    this.tell({ op: 'rm', path });
    return () => this.tell({ op: 'keep', path });
  }

  /** Ctrl-C, SIGTERM, SIGHUP: clean up, then exit with the signal's code. */
  installSignalHandlers(): void {
    for (const sig of Object.keys(SIGNAL_CODES) as NodeJS.Signals[]) {
      process.on(sig, () => {
        if (this.signalled) {
          this.say(`bench: ${sig} again; still cleaning up (the reaper finishes if this process dies)`);
          return;
        }
        this.signalled = true;
        this.say(`bench: ${sig}: stopping workers, servers and Postgres`);
        void this.run().finally(() => process.exit(128 + (SIGNAL_CODES[sig] ?? 0)));
      });
    }
  }

  /** Runs every step once (later calls wait for the same run), then lets the reaper go. */
  run(): Promise<void> {
    if (!this.running) this.running = this.runSteps();
    return this.running;
  }

  private async runSteps(): Promise<void> {
    while (this.steps.length > 0) {
      const step = this.steps.pop() as Step;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          Promise.resolve().then(step.fn),
          new Promise<void>((_, reject) => {
            timer = setTimeout(
              () => reject(new Error(`timed out after ${STEP_TIMEOUT_MS} ms`)),
              STEP_TIMEOUT_MS,
            );
          }),
        ]);
      } catch (err) {
        this.say(`bench: clean-up '${step.name}' failed: ${(err as Error).message}`);
      } finally {
        clearTimeout(timer);
      }
    }
    // What is left registered with the reaper (nothing, when every step worked) is its to stop.
    this.reaper?.stdin?.end();
    this.reaper = null;
  }

  private tell(message: Record<string, unknown>): void {
    if (!this.reaper) {
      const main = join(dirname(fileURLToPath(import.meta.url)), 'reaper-main.js');
      this.reaper = spawn(process.execPath, [main], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
      this.reaper.on('error', (err) => this.say(`bench: the reaper did not start: ${err.message}`));
      this.reaper.stdin?.on('error', () => {});
      // Neither the reaper nor its pipe keeps this process alive.
      this.reaper.unref();
      (this.reaper.stdin as unknown as Socket | null)?.unref?.();
    }
    this.reaper.stdin?.write(`${JSON.stringify(message)}\n`);
  }
}
