/** Starts the benchmarks' model server (model-server-main.ts) as its own process; see there. */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchCleanup } from './cleanup.js';

/** One model call as the server saw it: epoch ms (fractional) of the request's arrival and of the answer. */
export interface ServerSpan {
  agent: string;
  start: number;
  end: number;
}

export interface ModelServer {
  /** Base URL including `/v1` (OpenAI Chat Completions and the other protocols of the fake provider). */
  url: string;
  pid: number;
  /** Every call so far, and the coordination share of the requests' characters. */
  observed(): Promise<{ spans: ServerSpan[]; chars: { coordination: number; total: number } }>;
  stop(): Promise<void>;
}

export function startModelServer(options: {
  policy: 'peers-claims' | 'peers-board' | 'orchestrated';
  latencyMs: number;
  promptCache?: boolean;
  cleanup: BenchCleanup;
}): Promise<ModelServer> {
  const main = join(dirname(fileURLToPath(import.meta.url)), 'model-server-main.js');
  const args = [main, '--policy', options.policy, '--latency-ms', String(options.latencyMs)];
  if (options.promptCache) args.push('--prompt-cache');
  // Its own process group: a Ctrl-C at the terminal reaches the benchmark, which stops it in turn.
  const child: ChildProcess = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const forget = child.pid ? options.cleanup.guardProcess(child.pid, { group: true }) : () => {};
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    forget();
  };
  const undo = options.cleanup.defer('model server', stop);
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      child.stdout?.removeAllListeners('data');
      const { url, controlUrl } = JSON.parse(buffered.slice(0, newline)) as {
        url: string;
        controlUrl: string;
      };
      resolve({
        url,
        pid: child.pid ?? -1,
        async observed() {
          const res = await fetch(`${controlUrl}/spans`);
          const body = (await res.json()) as {
            spans: [string, number, number][];
            chars: { coordination: number; total: number };
          };
          return {
            spans: body.spans.map(([agent, start, end]) => ({ agent, start, end })),
            chars: body.chars,
          };
        },
        async stop() {
          undo();
          await stop();
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`the model server exited early (code ${code})`)));
    child.once('error', reject);
  });
}
