/**
 * Coordination benchmark (keys: bench/README.md § coord). On a throwaway embedded Postgres:
 *  1. shared-context append throughput with 1,000 concurrent writers;
 *  2. context_read latency at 1k, 10k and 100k entries when 10 are new (must stay flat);
 *  3. direct-message latency from send until the receiver's injector (beforeModelCall) returns it,
 *     with receivers busy in simulated tool calls, excluding the time a receiver was inside a tool
 *     call (it cannot be interrupted mid-call); sender and receivers use separate Coordination
 *     instances (separate LISTEN connections, as two processes would);
 *  3b. the injector's cost when there is no message;
 *  4. claims with 1,000 claimants over random scopes: throughput, conflicts, and double grants
 *     from checkGrantHistory over the run's events.
 * Usage: npm run bench -- coord [--writers 1000] [--posts 10] [--claimants 1000] [--claim-ops 5]
 *        [--receivers 50] [--messages 400] [--parts append,read,dm,claims] [--home DIR] [--keep]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Coordination,
  checkGrantHistory,
  createCoordination,
  directMessageInjector,
} from '../src/coord/index.js';
import { seededRandom } from '../src/core/random.js';
import { openStore, type Store } from '../src/store/index.js';
import { integrationFigures } from './integration.js';
import { parseBenchArgs } from './lib/args.js';

const args = parseBenchArgs(process.argv.slice(2));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function appendThroughput(coord: Coordination, writers: number, posts: number) {
  const runId = `bench-append-${Date.now().toString(36)}`;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; i < posts; i++) {
        const r = await coord.context.post({
          runId,
          author: `w${w}`,
          kind: i % 7 === 0 ? 'FAIL' : 'OBSERVED',
          summary: `writer ${w} finding ${i}: the parser rejects trailing commas in argument lists`,
          detail: i % 3 === 0 ? `evidence ${i}`.repeat(10) : undefined,
        });
        if (!r.ok) throw new Error(r.error);
      }
    }),
  );
  const wallMs = performance.now() - started;
  return { entries: writers * posts, wallMs, perSec: (writers * posts) / (wallMs / 1000) };
}

/** Fills a run to `target` entries (1,000 per post burst) and lets the reader catch up. */
async function fill(coord: Coordination, runId: string, from: number, target: number) {
  for (let n = from; n < target; n += 1000) {
    const count = Math.min(1000, target - n);
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        coord.context.post({ runId, author: `w${i % 50}`, kind: 'OBSERVED', summary: `entry ${n + i}` }),
      ),
    );
    for (const r of results) if (!r.ok) throw new Error(r.error);
  }
  for (;;) {
    const r = await coord.context.read(runId, 'reader', { limit: 10_000 });
    if (!r.ok) throw new Error(r.error);
    if (r.value.remaining === 0) break;
  }
}

async function readLatency(coord: Coordination) {
  const runId = `bench-read-${Date.now().toString(36)}`;
  const out: Record<string, number> = {};
  let size = 0;
  for (const [label, target] of [
    ['1k', 1_000],
    ['10k', 10_000],
    ['100k', 100_000],
  ] as const) {
    await fill(coord, runId, size, target);
    size = target;
    const samples: number[] = [];
    for (let rep = 0; rep < 30; rep++) {
      const posted = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          coord.context.post({
            runId,
            author: 'new',
            kind: i === 9 ? 'FAIL' : 'FACT',
            summary: `new ${rep}.${i}`,
          }),
        ),
      );
      size += posted.length;
      const t = performance.now();
      const r = await coord.context.read(runId, 'reader', { limit: 50 });
      samples.push(performance.now() - t);
      if (!r.ok || r.value.entries.length !== 10 || r.value.entries[0]?.kind !== 'FAIL') {
        throw new Error(`read at ${label} returned ${r.ok ? r.value.entries.length : r.error}`);
      }
    }
    out[`readP50MsAt${label}`] = round(percentile(samples, 50));
    out[`readP99MsAt${label}`] = round(percentile(samples, 99));
  }
  return out;
}

interface Pending {
  sentAt: number;
  committedAt: number;
  to: string;
}

async function directMessageLatency(
  sender: Coordination,
  receiverSide: Coordination,
  receivers: number,
  messages: number,
) {
  const runId = `bench-dm-${Date.now().toString(36)}`;
  const random = seededRandom(7);
  const pending = new Map<number, Pending>();
  const latencies: number[] = [];
  const raw: number[] = [];
  let missed = 0;
  let stop = false;
  const toolIntervals = new Map<string, [number, number][]>();

  const receiver = async (name: string) => {
    const inject = directMessageInjector(receiverSide.messages, runId, name);
    const intervals: [number, number][] = [];
    toolIntervals.set(name, intervals);
    while (!stop) {
      // A tool call of 5–25 ms (the agent cannot be interrupted inside it).
      const start = performance.now();
      await sleep(5 + Math.floor(random() * 20));
      intervals.push([start, performance.now()]);
      const checkAt = performance.now();
      const got = await inject();
      const returnedAt = performance.now();
      const gotIds = new Set<number>();
      for (const m of got) {
        const match = /#(\d+)$/.exec(m.content);
        if (match) gotIds.add(Number(match[1]));
      }
      for (const id of gotIds) {
        const p = pending.get(id);
        if (!p) continue;
        pending.delete(id);
        const inTools = intervals.reduce(
          (sum, [a, b]) => sum + Math.max(0, Math.min(b, returnedAt) - Math.max(a, p.sentAt)),
          0,
        );
        raw.push(returnedAt - p.sentAt);
        latencies.push(returnedAt - p.sentAt - inTools);
      }
      // A message committed before this check began but not returned by it: a missed check.
      for (const [id, p] of pending) {
        if (p.to === name && p.committedAt < checkAt && !gotIds.has(id)) missed++;
      }
      while (intervals.length > 0 && intervals[0]![1] < returnedAt - 10_000) intervals.shift();
    }
  };
  const names = Array.from({ length: receivers }, (_, i) => `r${i}`);
  const loops = names.map(receiver);
  await sleep(200);
  for (let i = 0; i < messages; i++) {
    const to = names[Math.floor(random() * names.length)]!;
    const sentAt = performance.now();
    const text = `please look at src/module${i}.ts #${i + 1}`;
    const r = await sender.messages.send({ runId, from: 'sender', to, text });
    if (!r.ok) throw new Error(r.error);
    if (r.value.id !== i + 1) throw new Error('unexpected message id');
    pending.set(r.value.id, { sentAt, committedAt: performance.now(), to });
    await sleep(random() * 10);
  }
  const deadline = performance.now() + 10_000;
  while (pending.size > 0 && performance.now() < deadline) await sleep(20);
  stop = true;
  await Promise.all(loops);
  return {
    dmMessages: messages,
    dmDelivered: latencies.length,
    dmP50Ms: round(percentile(latencies, 50)),
    dmP99Ms: round(percentile(latencies, 99)),
    dmMaxMs: round(Math.max(...latencies)),
    dmRawP50Ms: round(percentile(raw, 50)),
    dmRawP99Ms: round(percentile(raw, 99)),
    dmMissedChecks: missed,
    dmNotices: receiverSide.listener.notices,
  };
}

async function idleInjectorCost(coord: Coordination, agents: number) {
  const runId = `bench-idle-${Date.now().toString(36)}`;
  const injectors = Array.from({ length: agents }, (_, i) =>
    directMessageInjector(coord.messages, runId, `a${i}`),
  );
  await Promise.all(injectors.map((inject) => inject())); // first check: one query each
  const rounds = 20;
  const t = performance.now();
  for (let r = 0; r < rounds; r++) await Promise.all(injectors.map((inject) => inject()));
  return { injectorIdleUs: round(((performance.now() - t) * 1000) / (rounds * agents), 3) };
}

async function claimBench(coord: Coordination, store: Store, claimants: number, ops: number) {
  const runId = `bench-claims-${Date.now().toString(36)}`;
  const random = seededRandom(42);
  const dirs = ['src', 'lib', 'test', 'docs'].flatMap((top) =>
    Array.from({ length: 15 }, (_, i) => `${top}/m${i}`),
  );
  const scopes = [
    ...dirs.map((d) => `${d}/`),
    ...dirs.flatMap((d) => Array.from({ length: 4 }, (_, i) => `${d}/f${i}.ts`)),
    ...Array.from({ length: 40 }, (_, i) => `task:${i}`),
    'src/',
    'lib/',
  ];
  let conflicts = 0;
  let granted = 0;
  let releases = 0;
  let calls = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: claimants }, async (_, c) => {
      const agent = `c${c}`;
      const held: string[] = [];
      for (let i = 0; i < ops; i++) {
        if (held.length > 0 && random() < 0.35) {
          const [scope] = held.splice(Math.floor(random() * held.length), 1);
          const r = await coord.claims.release({ runId, agent, scope: scope!, outcome: 'done' });
          calls++;
          if (!r.ok) throw new Error(r.error);
          releases++;
        } else {
          const scope = scopes[Math.floor(random() * scopes.length)]!;
          const r = await coord.claims.claim({ runId, agent, scope, summary: `${agent} on ${scope}` });
          calls++;
          if (!r.ok) throw new Error(r.error);
          if (r.value.status === 'conflict') conflicts++;
          else {
            granted++;
            if (!r.value.existing) held.push(r.value.scope);
          }
        }
      }
    }),
  );
  const wallMs = performance.now() - started;
  const history = checkGrantHistory(await store.log.read(runId));
  return {
    claimants,
    claimCalls: calls,
    claimWallMs: Math.round(wallMs),
    claimCallsPerSec: Math.round(calls / (wallMs / 1000)),
    claimGrants: granted,
    claimReleases: releases,
    claimConflicts: conflicts,
    doubleGrants: history.violations.length,
    grantHistoryOk: history.ok,
    maxHeld: history.maxHeld,
  };
}

async function main(): Promise<void> {
  const writers = args.number('writers', 1000);
  const posts = args.number('posts', 10);
  const claimants = args.number('claimants', 1000);
  const claimOps = args.number('claim-ops', 5);
  const receivers = args.number('receivers', 50);
  const messages = args.number('messages', 400);
  const given = args.string('home');
  const home = given ?? mkdtempSync(join(tmpdir(), 'colony-bench-coord-'));
  const store = await openStore({ home, quiet: true, databaseUrl: '', poolSize: 20 });
  const coord = await createCoordination(store);
  const receiverSide = await createCoordination(store);
  const parts = new Set((args.string('parts') ?? 'append,read,dm,claims,integration').split(','));
  const result: Record<string, unknown> = {};
  const part = async (name: string, run: () => Promise<Record<string, unknown>>) => {
    if (!parts.has(name)) return;
    const figures = await run();
    process.stderr.write(`${name}: ${JSON.stringify(figures)}\n`);
    Object.assign(result, figures);
  };
  try {
    await part('append', async () => {
      const append = await appendThroughput(coord, writers, posts);
      return {
        writers,
        appendEntries: append.entries,
        appendWallMs: Math.round(append.wallMs),
        appendPerSec: Math.round(append.perSec),
      };
    });
    await part('read', () => readLatency(coord));
    await part('dm', async () => ({
      ...(await directMessageLatency(coord, receiverSide, receivers, messages)),
      ...(await idleInjectorCost(receiverSide, 1000)),
    }));
    await part('claims', () => claimBench(coord, store, claimants, claimOps));
    // Integration queue on the demo repository with its test suite as verify (bench/integration.ts).
    await part('integration', async () => {
      const figures = await integrationFigures({ n: args.number('merges', 20), batchSize: 8, store });
      return Object.fromEntries(Object.entries(figures).map(([key, value]) => [`integration_${key}`, value]));
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await receiverSide.close();
    await coord.close();
    await store.close();
    if (!given && !args.flag('keep')) rmSync(home, { recursive: true, force: true });
  }
}

await main();
