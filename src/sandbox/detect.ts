/**
 * Is the sandbox available here? The bwrap binary must be on PATH and must actually build a sandbox
 * (user namespaces may be disabled, or a container may forbid them): a probe runs `true` in a sandbox
 * built exactly as agents' commands are. The answer is cached per PATH for the process.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { err, ok, type Result } from '../lang/result.js';
import { containCommand } from './argv.js';
import { sandboxUnavailableMessage } from './unavailable.js';

const PROBE_TIMEOUT_MS = 10_000;
const probes = new Map<string, Promise<Result<string>>>();

/** The absolute path of `name` on `searchPath` (PATH's format), or null. */
export function findOnPath(name: string, searchPath: string | undefined): string | null {
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

/** bwrap's path when the sandbox works on this machine; otherwise the error naming the fix. */
export function detectSandbox(env: NodeJS.ProcessEnv = process.env): Promise<Result<string>> {
  const key = env.PATH ?? '';
  let probe = probes.get(key);
  if (!probe) {
    probe = probeSandbox(env);
    probes.set(key, probe);
  }
  return probe;
}

async function probeSandbox(env: NodeJS.ProcessEnv): Promise<Result<string>> {
  const bwrap = findOnPath('bwrap', env.PATH);
  if (!bwrap) return err(sandboxUnavailableMessage('`bwrap` is not on PATH'));
  const checkout = mkdtempSync(path.join(tmpdir(), 'colony-sandbox-probe-'));
  try {
    const sandbox = { bwrap, network: false, writable: true, passEnv: {} };
    const command = containCommand(sandbox, ['true'], { cwd: checkout, baseEnv: env });
    const run = await runProbe(command.file, command.args, command.env);
    if (run.code === 0) return ok(bwrap);
    const why = run.output.trim().split('\n').at(-1) || `exit ${run.code}`;
    return err(sandboxUnavailableMessage(`${bwrap} cannot create a sandbox here (${why})`));
  } finally {
    rmSync(checkout, { recursive: true, force: true });
  }
}

function runProbe(
  file: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: error.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
