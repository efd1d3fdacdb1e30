/**
 * The fake provider as its own process (`main.ts --scenario fanout`), as the benchmark runs it:
 * prints its address, serves the stateless fanout scenario and counts requests in /_stats.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIChatProvider } from '../../src/model/providers/openai-chat.js';
import type { Message, ModelRecord } from '../../src/model/types.js';

const root = join(import.meta.dirname, '..', '..');
let out: string;
let child: ChildProcess;
let url: string;

/** Transpiles the model layer and the fake provider (no type check) so node can run main.js. */
async function transpile(dir: string): Promise<void> {
  for (const sub of ['src/model', 'test/fake-provider']) {
    for (const entry of await readdir(join(root, sub), { recursive: true })) {
      if (!entry.endsWith('.ts') || entry.endsWith('.test.ts')) continue;
      const file = join(root, sub, entry);
      const js = ts.transpileModule(await readFile(file, 'utf8'), {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      }).outputText;
      const target = join(dir, relative(root, file)).replace(/\.ts$/, '.js');
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, js);
    }
  }
  await writeFile(join(dir, 'package.json'), '{"type":"module"}');
}

beforeAll(async () => {
  out = await mkdtemp(join(tmpdir(), 'colony-fake-'));
  await transpile(out);
  child = spawn(
    process.execPath,
    [join(out, 'test/fake-provider/main.js'), '--port', '0', '--latency-ms', '20', '--scenario', 'fanout'],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const first = await new Promise<string>((resolve) =>
    createInterface({ input: child.stdout! }).once('line', resolve),
  );
  const info = JSON.parse(first) as { url: string; port: number };
  expect(info.port).toBeGreaterThan(0);
  url = info.url;
});
afterAll(async () => {
  if (child.exitCode === null) child.kill('SIGKILL');
  await rm(out, { recursive: true, force: true });
});

describe('fake provider process', () => {
  it('runs the fanout scenario statelessly and counts each distinct request once', async () => {
    const model: ModelRecord = {
      id: 'fake',
      protocol: 'openai-chat',
      name: 'fake',
      contextWindow: 1e5,
      maxOutput: 100,
      prices: null,
    };
    const provider = createOpenAIChatProvider(model, { baseUrl: url, apiKey: 'k' });
    const agents = 3;
    await Promise.all(
      Array.from({ length: agents }, async (_, a) => {
        const messages: Message[] = [{ role: 'user', content: `agent ${a}: list things` }];
        for (let step = 0; ; step++) {
          const r = await provider.call({ system: 'sys', messages, tools: [], stream: step % 2 === 0 });
          if (!r.ok) throw new Error(r.error.message);
          if (r.turn.toolCalls.length === 0) {
            expect(step).toBe(5);
            expect(r.turn.text).toContain('5 times');
            return;
          }
          expect(r.turn.toolCalls[0]).toMatchObject({ name: 'ls', arguments: '{}' });
          messages.push({ role: 'assistant', content: r.turn.text, toolCalls: r.turn.toolCalls });
          for (const c of r.turn.toolCalls)
            messages.push({ role: 'tool', toolCallId: c.id, name: c.name, content: 'a b', isError: false });
        }
      }),
    );
    const stats = (await (await fetch(url.replace(/\/v1$/, '/_stats'))).json()) as {
      requests: number;
      byKey: Record<string, number>;
    };
    expect(stats.requests).toBe(agents * 6);
    expect(Object.keys(stats.byKey)).toHaveLength(agents * 6);
    expect(Object.values(stats.byKey).every((n) => n === 1)).toBe(true);
  });

  it('stops on SIGTERM', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
