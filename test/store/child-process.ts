import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./fixtures/store-child.mjs', import.meta.url));

/** A separate node process driving the built store (see fixtures/store-child.mjs). */
export interface StoreChild {
  proc: ChildProcessWithoutNullStreams;
  send(command: string): Promise<Record<string, unknown>>;
  stderr(): string;
  exited: Promise<number | null>;
}

export function spawnStoreChild(env: NodeJS.ProcessEnv): StoreChild {
  const proc = spawn(process.execPath, [SCRIPT], { env: { ...process.env, ...env }, stdio: 'pipe' });
  let stderr = '';
  let buffer = '';
  const waiting: ((line: string) => void)[] = [];
  const lines: string[] = [];
  proc.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  proc.stdout.on('data', (c: Buffer) => {
    buffer += c.toString();
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      const next = waiting.shift();
      if (next) next(line);
      else lines.push(line);
    }
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    proc,
    exited,
    stderr: () => stderr,
    send(command) {
      const line = new Promise<string>((resolve, reject) => {
        const queued = lines.shift();
        if (queued !== undefined) return resolve(queued);
        waiting.push(resolve);
        exited.then((code) => reject(new Error(`child exited (${code}) before replying; stderr: ${stderr}`)));
      });
      proc.stdin.write(`${command}\n`);
      return line.then((text) => {
        const reply = JSON.parse(text) as Record<string, unknown>;
        if (typeof reply.error === 'string') throw new Error(`child: ${reply.error}; stderr: ${stderr}`);
        return reply;
      });
    },
  };
}
