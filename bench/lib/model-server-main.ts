/**
 * The benchmarks' model server, its own process (model-server.ts starts it): the fake provider
 * (test/fake-provider) answering with a bench policy after a fixed latency, and a second, control
 * listener that hands out what it saw — every model call's span on this machine's wall clock
 * (arrival of the request → answer ready) with the agent that made it, and the coordination share of
 * the requests' characters. Agents on fleet workers call it like any endpoint, so the spans are where
 * a run's calls are seen whichever process made them.
 *
 *   node dist/bench/lib/model-server-main.js --policy peers-claims|peers-board|orchestrated
 *        --latency-ms 1000 [--prompt-cache]
 * Prints one JSON line {"url", "controlUrl"}; GET controlUrl/spans; stops on SIGTERM/SIGINT.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { orchestratedPolicy } from '../../src/demo/orchestrated-policy.js';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { createPromptCache } from '../../src/model/providers/prompt-cache.js';
import type { ModelRequest } from '../../src/model/types.js';
import { startFakeProvider } from '../../test/fake-provider/server.js';
import { coordinationChars } from './coordination-share.js';
import { peersBenchPolicy } from './peers-policy.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const POLICIES: Record<string, () => ScriptedPolicy> = {
  'peers-claims': () => peersBenchPolicy('claims'),
  'peers-board': () => peersBenchPolicy('board'),
  orchestrated: () => orchestratedPolicy(),
};

const policyName = arg('policy') ?? '';
const makePolicy = POLICIES[policyName];
if (!makePolicy) {
  process.stderr.write(`model server: --policy must be one of ${Object.keys(POLICIES).join(', ')}\n`);
  process.exit(2);
}
const latencyMs = Number(arg('latency-ms') ?? 0);
const cache = process.argv.includes('--prompt-cache') ? createPromptCache() : null;
const inner = makePolicy();

/** Whose call this is: a peer, a subagent, the lead. */
function agentOf(request: ModelRequest): string {
  const peer = /Your peer ID is (peer-\d+)\.$/.exec(request.system)?.[1];
  if (peer) return peer;
  const subagent = /You are subagent "([^"]+)"/.exec(request.system)?.[1];
  if (subagent) return subagent;
  return request.system.startsWith('You are the lead') ? 'lead' : 'unknown';
}

const now = () => performance.timeOrigin + performance.now();
/** [agent, start, end] in epoch ms (fractional). */
const spans: [string, number, number][] = [];
const chars = { coordination: 0, total: 0 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The latency is waited here, not in the fake provider, so the span starts when the request arrived.
const policy: ScriptedPolicy = async (request, callIndex) => {
  const start = now();
  const counted = coordinationChars(request);
  chars.coordination += counted.coordination;
  chars.total += counted.total;
  if (latencyMs > 0) await sleep(latencyMs);
  let turn = await inner(request, callIndex);
  // Simulated provider prefix caching, as the in-process scripted provider's `promptCache` does.
  const cached = cache && turn.usage?.cachedInput === undefined ? cache.cachedTokens(request) : 0;
  if (cached > 0) turn = { ...turn, usage: { ...turn.usage, cachedInput: cached } };
  spans.push([agentOf(request), start, now()]);
  return turn;
};

const fake = await startFakeProvider({ policy, latencyMs: 0, record: false });
const control = http.createServer((req, res) => {
  if (req.url === '/spans') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ spans, chars }));
    return;
  }
  res.writeHead(404).end();
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
const stop = (): void => {
  control.close();
  fake.close().then(() => process.exit(0));
  setTimeout(() => process.exit(0), 3000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdout.write(`${JSON.stringify({ url: fake.url, controlUrl })}\n`);
