/** The built `colony watch` as a background process with its own environment, and waiting for a state. */
import { type ChildProcess, spawn } from 'node:child_process';
import { COLONY_BIN, NO_API_KEYS } from '../helpers/cli.js';

export interface WatchProcess {
  child: ChildProcess;
  output: () => string;
  closed: Promise<number | null>;
}

export function startWatch(args: string[], env: NodeJS.ProcessEnv): WatchProcess {
  const child = spawn(process.execPath, [COLONY_BIN, 'watch', ...args], {
    env: { ...process.env, ...NO_API_KEYS, ...env },
  });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  return { child, output: () => out, closed };
}

/** Polls `check` until it holds; fails naming `what` (and the watch's output) after `limitMs`. */
export async function waitFor(
  what: string,
  check: () => boolean | Promise<boolean>,
  watch: WatchProcess | null,
  limitMs = 180_000,
): Promise<void> {
  const end = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > end)
      throw new Error(`gave up waiting for ${what}; watch output:\n${watch?.output() ?? ''}`);
    if (watch && watch.child.exitCode !== null)
      throw new Error(`colony watch ended (${watch.child.exitCode}) before ${what}:\n${watch.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
