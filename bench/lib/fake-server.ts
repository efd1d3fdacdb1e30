/** Starts the fake provider server as its own process and waits for the line with its URL. */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export interface FakeServerProcess {
  url: string;
  pid: number;
  /** Requests served so far (GET /_stats). */
  requests(): Promise<number>;
  stop(): Promise<void>;
}

export function startFakeServer(options: {
  distRoot: string;
  latencyMs: number;
  scenario: string;
}): Promise<FakeServerProcess> {
  const main = join(options.distRoot, 'test', 'fake-provider', 'main.js');
  const args = [
    main,
    '--port',
    '0',
    '--latency-ms',
    String(options.latencyMs),
    '--scenario',
    options.scenario,
  ];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let buffered = '';
    const onData = (chunk: Buffer): void => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      child.stdout?.off('data', onData);
      try {
        const { url } = JSON.parse(buffered.slice(0, newline)) as { url: string };
        resolve(handle(child, url));
      } catch (err) {
        child.kill('SIGKILL');
        reject(new Error(`fake server printed no URL: ${String(err)}`));
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`fake server exited early (code ${code})`)));
    child.once('error', reject);
  });
}

function handle(child: ChildProcess, url: string): FakeServerProcess {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url,
    pid: child.pid ?? -1,
    async requests() {
      const res = await fetch(`${url.replace(/\/v1$/, '')}/_stats`);
      const stats = (await res.json()) as { requests: number };
      return stats.requests;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
