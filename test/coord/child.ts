import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./fixtures/coord-child.mjs', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Child processes run the build; rebuild when src/coord is newer than it. */
export function ensureBuilt(): void {
  const built = join(ROOT, 'dist/src/coord/index.js');
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((max, entry) => {
      const path = join(dir, entry.name);
      return Math.max(max, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
    }, 0);
  if (existsSync(built) && statSync(built).mtimeMs >= newest(join(ROOT, 'src/coord'))) return;
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json')], { cwd: ROOT, stdio: 'ignore' });
  if (!existsSync(built)) throw new Error('build failed: dist/src/coord/index.js is missing');
}

/** A separate node process driving the built coordination services (fixtures/coord-child.mjs). */
export interface CoordChild {
  proc: ChildProcessWithoutNullStreams;
  send(command: Record<string, unknown>): Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

export function spawnCoordChild(): CoordChild {
  const proc = spawn(process.execPath, [SCRIPT], { stdio: 'pipe' });
  let stderr = '';
  let buffer = '';
  const waiting: ((line: string) => void)[] = [];
  proc.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  proc.stdout.on('data', (c: Buffer) => {
    buffer += c.toString();
    for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      waiting.shift()?.(line);
    }
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    proc,
    exited,
    send(command) {
      const line = new Promise<string>((resolve, reject) => {
        waiting.push(resolve);
        void exited.then((code) =>
          reject(new Error(`child exited (${code}) before replying; stderr: ${stderr}`)),
        );
      });
      proc.stdin.write(`${JSON.stringify(command)}\n`);
      return line.then((text) => {
        const reply = JSON.parse(text) as Record<string, unknown>;
        if (typeof reply.error === 'string') throw new Error(`child: ${reply.error}; stderr: ${stderr}`);
        return reply;
      });
    },
  };
}
