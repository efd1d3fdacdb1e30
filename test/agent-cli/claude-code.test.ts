/**
 * The real Claude Code CLI (the pinned devDependency @anthropic-ai/claude-code) as a peer in
 * `colony run --topology peers --agent-cli claude-code`: its model turns come from the fake provider
 * (Anthropic protocol) through the metering proxy, scripted (claude-policy.ts): claim over MCP, its
 * own Read and Write, merge_request and release over MCP.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';
import { claudePolicy } from './claude-policy.js';

const CLAUDE = join(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '@anthropic-ai',
  'claude-code',
  'cli.js',
);

let store: Store;
let fake: FakeProvider;
beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({ policy: claudePolicy, requireKey: 'sk-ant-real' });
});
afterAll(async () => {
  await fake?.close();
  await store?.close();
});

const ofKind = <K extends StoredEvent['kind']>(events: StoredEvent[], kind: K) =>
  events.filter((e): e is StoredEvent<K> => e.kind === kind);

describe.skipIf(!existsSync(CLAUDE))('--agent-cli claude-code', () => {
  it('Claude Code claims, writes with its own tool, merges through the queue and releases', async () => {
    const r = createUserRepo({ 'README.md': '# m\n', 'src/alpha/value.txt': 'broken\n' }, 'colony-claude-');
    const args = [
      'run',
      '--topology',
      'peers',
      '--agents',
      '1',
      '--repo',
      r.dir,
      '--goal',
      'fix every module',
      '--model',
      'anthropic:fake-model',
      '--base-url',
      fake.url,
      '--verify',
      '! grep -rqx broken src',
      '--json',
      '--agent-cli',
      'claude-code',
      ...(process.env.COLONY_TEST_CLAUDE_SANDBOX === 'off' ? ['--sandbox', 'off'] : []),
    ];
    const result = await colony(args, {
      env: { ...NO_API_KEYS, ANTHROPIC_API_KEY: 'sk-ant-real', ANTHROPIC_BASE_URL: '' },
      timeoutMs: 240_000,
    });
    const summary = lastJsonLine(result.stdout);
    const events = summary.runId ? await store.log.read(summary.runId as string) : [];
    const context = `${result.stderr}\n${events.map((e) => `${e.kind} ${JSON.stringify(e.data).slice(0, 600)}`).join('\n')}`;
    expect(summary.status, context).toBe('succeeded');
    const cli = ofKind(events, 'agent.cli').filter((e) => e.agent === 'peer-1');
    expect(cli.map((e) => e.data.event)).toEqual(['started', 'session', 'exited']);
    expect(cli[1]?.data.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ofKind(events, 'claim.granted').map((e) => e.data.scope)).toEqual(['src/alpha/']);
    expect(ofKind(events, 'claim.released').map((e) => e.data.outcome)).toContain('fixed alpha');
    expect(ofKind(events, 'merge.landed')).toHaveLength(1);
    const finished = ofKind(events, 'agent.finished').find((e) => e.agent === 'peer-1');
    expect(finished?.data).toMatchObject({ status: 'done', stopReason: 'answered' });
    // Every call Claude Code made through the proxy is one model.response of peer-1, and the fake
    // provider saw exactly as many (with the real key; the agent's token never left Colony).
    const responses = ofKind(events, 'model.response').filter((e) => e.agent === 'peer-1');
    const seen = fake.requests();
    expect(responses.length).toBe(seen.length);
    expect(seen.every((q) => !JSON.stringify(q.headers).includes('colony_at_'))).toBe(true);
    expect(responses.length).toBe(finished?.data.steps);
    const tools = responses.flatMap((e) => e.data.turn.toolCalls.map((c) => c.name));
    expect(tools).toEqual([
      'mcp__colony__claim',
      'Read',
      'Write',
      'mcp__colony__merge_request',
      'mcp__colony__release',
    ]);
  }, 300_000);
});
