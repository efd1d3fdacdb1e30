/**
 * Dashboard benchmark: records a synthetic finished run of 1,000 agents and 100k events (real events
 * appended through the EventLog into a fresh embedded Postgres), serves it, loads the run page in
 * Debian's Chromium and measures what the user feels. Prints one JSON line:
 *   events, agents, recordMs             the synthetic run and how long appending it took
 *   firstViewMs, viewBytes               server: first /api/runs/ID (fold of the whole log) and its size
 *   cachedViewMs                         server: the same request again (incremental, nothing new)
 *   firstRenderMs                        browser: navigation start → agent rows and timeline drawn
 *   longTaskMs, longTasks                browser: PerformanceObserver 'longtask' total during load + scrolling
 *   domNodes                             browser: document.getElementsByTagName('*').length after load
 *   scrollLongTaskMs                     long-task time while scrolling the agent list and timeline to the end
 * Usage: npm run bench -- dashboard [--agents 1000] [--events 100000] [--keep]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventInput } from '../src/core/events.js';
import { startServer } from '../src/server/index.js';
import { openStore } from '../src/store/index.js';
import { parseBenchArgs } from './lib/args.js';
import { assertChromium, launchChromium } from './lib/chromium.js';

const KINDS = ['FAIL', 'FACT', 'OBSERVED', 'PATCH'] as const;

/** The synthetic run: per agent, model calls each followed by a tool call, plus coordination. */
function* synthetic(runId: string, agents: number, total: number): Generator<EventInput> {
  yield {
    runId,
    agent: null,
    kind: 'run.started',
    data: {
      topology: 'peers',
      goal: 'synthetic 100k-event run',
      repo: '/tmp/synthetic',
      base: 'main',
      model: 'fake',
      config: { maxSteps: 200, budgetUsd: 100, concurrency: 1000 },
    },
  };
  const names = Array.from({ length: agents }, (_, i) => `peer-${i + 1}`);
  for (const agent of names)
    yield {
      runId,
      agent,
      kind: 'agent.started',
      data: {
        profile: 'coder',
        model: 'fake',
        task: 'fix',
        system: 'you are a peer',
        tools: ['bash'],
        maxSteps: 200,
      },
    };
  let emitted = 1 + agents;
  let step = 0;
  let ids = 0;
  while (emitted < total - agents - 2) {
    step += 1;
    for (const agent of names) {
      if (emitted >= total - agents - 2) break;
      const callId = `${agent}-${step}`;
      const args = JSON.stringify({ command: `npm test -- ${step}` });
      yield {
        runId,
        agent,
        kind: 'model.response',
        data: {
          step,
          turn: {
            text: '',
            toolCalls: [{ id: callId, name: 'bash', arguments: args }],
            stopReason: 'tool_calls',
            usage: {
              input: 4000 + step * 50,
              cachedInput: 3000,
              cacheWrite: 0,
              output: 120,
              reasoning: undefined,
            },
            costUsd: 0.003,
            model: 'fake',
          },
          latencyMs: 800,
          requestMessages: step * 2,
        },
      };
      yield { runId, agent, kind: 'tool.started', data: { step, callId, name: 'bash', arguments: args } };
      yield {
        runId,
        agent,
        kind: 'tool.finished',
        data: {
          step,
          callId,
          name: 'bash',
          isError: step % 7 === 0,
          content: 'ok\n'.repeat(5),
          summary: 'exit 0',
          durationMs: 300,
        },
      };
      emitted += 3;
      if (step % 4 === 0) {
        ids += 1;
        yield {
          runId,
          agent,
          kind: 'context.posted',
          data: {
            id: ids,
            kind: KINDS[ids % KINDS.length] ?? 'FACT',
            summary: `finding ${ids} of ${agent}`,
            scope: null,
            hasDetail: false,
          },
        };
        emitted += 1;
      }
    }
  }
  for (const agent of names)
    yield {
      runId,
      agent,
      kind: 'agent.finished',
      data: { status: 'done', stopReason: 'answered', reason: 'done', steps: step, finalText: 'ok' },
    };
  yield {
    runId,
    agent: null,
    kind: 'verify.finished',
    data: { command: 'npm test', exitCode: 0, passed: true, output: 'ok', durationMs: 1000 },
  };
  yield {
    runId,
    agent: null,
    kind: 'run.finished',
    data: { status: 'succeeded', reason: 'verify passed', resultBranch: `colony/${runId}` },
  };
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  const agents = args.number('agents', 1000);
  const total = args.number('events', 100_000);
  assertChromium();
  const home = mkdtempSync(join(tmpdir(), 'colony-bench-dash-'));
  const store = await openStore({ home, quiet: true, databaseUrl: '' });
  const runId = 'bench-dashboard';
  try {
    await store.runs.createRun({
      runId,
      topology: 'peers',
      goal: 'synthetic 100k-event run',
      repo: '/tmp/synthetic',
      status: 'succeeded',
    });
    let t = performance.now();
    let batch: EventInput[] = [];
    let events = 0;
    for (const e of synthetic(runId, agents, total)) {
      batch.push(e);
      if (batch.length === 5000) {
        await store.log.appendMany(batch);
        events += batch.length;
        batch = [];
      }
    }
    if (batch.length) await store.log.appendMany(batch);
    events += batch.length;
    await store.log.flush();
    await store.runs.setRunStatus(runId, 'succeeded');
    const recordMs = performance.now() - t;

    const started = await startServer({
      store,
      token: 'bench-token-0123456789abcdefghijklmnop',
      host: '127.0.0.1',
      port: 0,
    });
    if (!started.ok) throw new Error(started.error);
    const server = started.server;
    t = performance.now();
    const first = await fetch(`${server.url}/api/runs/${runId}`);
    const viewBytes = (await first.arrayBuffer()).byteLength;
    const firstViewMs = performance.now() - t;
    t = performance.now();
    await (await fetch(`${server.url}/api/runs/${runId}`)).arrayBuffer();
    const cachedViewMs = performance.now() - t;

    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await page.addInitScript(() => {
        const w = window as unknown as { __long: number[] };
        w.__long = [];
        new PerformanceObserver((list) => {
          for (const entry of list.getEntries()) w.__long.push(entry.duration);
        }).observe({ type: 'longtask', buffered: true });
      });
      await page.goto(`${server.url}/runs/${runId}`);
      await page.waitForSelector('[data-agent]', { timeout: 120_000 });
      await page.waitForFunction(
        () => (document.querySelector('.timeline-canvas') as HTMLCanvasElement | null)?.width,
      );
      const firstRenderMs = await page.evaluate(() => performance.now());
      await page.waitForTimeout(1000);
      const load = await page.evaluate(() => ({
        long: (window as unknown as { __long: number[] }).__long.slice(),
        domNodes: document.getElementsByTagName('*').length,
      }));
      // Scroll the agent list and the timeline to the end, a screen at a time.
      await page.evaluate(async () => {
        for (const el of [
          document.querySelector('.vlist.agents'),
          document.querySelector('.timeline-scroll'),
        ]) {
          if (!el) continue;
          for (let y = 0; y < el.scrollHeight; y += 400) {
            el.scrollTop = y;
            await new Promise((r) => requestAnimationFrame(() => r(null)));
          }
        }
      });
      await page.waitForTimeout(300);
      const after = await page.evaluate(() => ({
        long: (window as unknown as { __long: number[] }).__long.slice(),
        domNodes: document.getElementsByTagName('*').length,
      }));
      const sum = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0));
      await page.screenshot({ path: join(home, 'dashboard-100k.png') });
      process.stderr.write(`screenshot: ${join(home, 'dashboard-100k.png')}\n`);
      process.stdout.write(
        `${JSON.stringify({
          bench: 'dashboard',
          events,
          agents,
          recordMs: Math.round(recordMs),
          firstViewMs: Math.round(firstViewMs),
          cachedViewMs: Math.round(cachedViewMs),
          viewBytes,
          firstRenderMs: Math.round(firstRenderMs),
          longTaskMs: sum(after.long),
          longTasks: after.long.length,
          loadLongTaskMs: sum(load.long),
          scrollLongTaskMs: sum(after.long) - sum(load.long),
          domNodes: load.domNodes,
          domNodesAfterScroll: after.domNodes,
        })}\n`,
      );
    } finally {
      await browser.close();
      await server.close();
    }
  } finally {
    await store.close();
    if (!args.flag('keep')) rmSync(home, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
