/**
 * Direct messages to an external agent that takes no input while it runs (a `cmd:` agent; Codex
 * the same): they come with its next Colony tool result over MCP and are marked read. A built-in
 * peer-1 sends peer-2 (the mini agent) a direct message; peer-2 keeps calling a Colony tool until a
 * result carries it, then fixes its module. The built CLI against the fake provider, sandbox on.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { ScriptedPolicy } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

const MINI_AGENT = join(import.meta.dirname, 'mini-agent.mjs');
const PING = 'PING-7f3: beta is yours';

const policy: ScriptedPolicy = (request) => {
  const peer = /Your peer ID is peer-(\d+)\.\s*$/.exec(request.system)?.[1];
  const calls = request.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
  const last = calls.at(-1)?.name;
  const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: args }] });
  if (peer === '1')
    return last ? { text: 'told peer-2' } : call('message_send', { to: 'peer-2', text: PING });
  if (peer !== '2') return { text: 'who am I?' };
  const told = request.messages.some((m) => m.role === 'tool' && m.content.includes(PING));
  if (!last) return call('claim', { scope: 'src/beta/', summary: 'fix beta' });
  // Waiting for peer-1's message: any Colony tool result may carry it (this one always fails).
  if (!told) return call('merge_status', { mr: 999 });
  if (last === 'claim' || last === 'merge_status')
    return call('write', { path: 'src/beta/value.txt', content: 'fixed beta\n' });
  if (last === 'write') return call('merge_request', { note: 'fix beta' });
  if (last === 'merge_request') return call('release', { scope: 'src/beta/', outcome: 'fixed beta' });
  return { text: 'beta fixed' };
};

let store: Store;
let fake: FakeProvider;
beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({ policy, requireKey: 'sk-real-key' });
});
afterAll(async () => {
  await fake?.close();
  await store?.close();
});

const ofKind = <K extends StoredEvent['kind']>(events: StoredEvent[], kind: K) =>
  events.filter((e): e is StoredEvent<K> => e.kind === kind);

describe('direct messages to a CLI without stdin input', () => {
  it('come with its next Colony tool result and are marked read', async () => {
    const repo = createUserRepo(
      { 'README.md': '# m\n', 'src/beta/value.txt': 'broken\n' },
      'colony-cli-msg-',
    );
    const result = await colony(
      [
        'run',
        '--topology',
        'peers',
        '--agents',
        '2',
        '--repo',
        repo.dir,
        '--goal',
        'fix every module',
        ...fakeModelFlags(fake.url),
        '--verify',
        '! grep -rqx broken src',
        '--json',
        '--agent-cli-peers',
        `peer-2=cmd:node ${MINI_AGENT}`,
      ],
      { env: { ...NO_API_KEYS, OPENAI_API_KEY: 'sk-real-key' }, timeoutMs: 180_000 },
    );
    const summary = lastJsonLine(result.stdout);
    const events = summary.runId ? await store.log.read(summary.runId as string) : [];
    const context = `${result.stderr}\n${events.map((e) => `${e.agent} ${e.kind} ${JSON.stringify(e.data).slice(0, 400)}`).join('\n')}`;
    expect(summary.status, context).toBe('succeeded');
    // Delivered once, as an interruption (not read with message_read), to peer-2.
    const delivered = ofKind(events, 'message.delivered').filter((e) => e.agent === 'peer-2');
    expect(
      delivered.map((e) => [e.data.via, e.data.messages.map((m) => [m.from, m.text])]),
      context,
    ).toEqual([['interrupt', [['peer-1', PING]]]]);
    // It reached the agent inside a Colony tool result (after the result itself), framed as a
    // direct message, in exactly one result.
    const toolResults = fake
      .requests()
      .flatMap((q) => q.request?.messages ?? [])
      .filter((m) => m.role === 'tool' && m.content.includes(PING));
    const withPing = new Set(toolResults.map((m) => (m.role === 'tool' ? m.toolCallId : '')));
    expect(withPing.size).toBe(1);
    expect(toolResults[0]?.content).toContain('[Direct message from peer-1');
    const tools = ofKind(events, 'model.response')
      .filter((e) => e.agent === 'peer-2')
      .flatMap((e) => e.data.turn.toolCalls.map((c) => c.name));
    expect(tools).not.toContain('message_read');
    expect(tools.slice(-3)).toEqual(['write', 'merge_request', 'release']);
  }, 240_000);
});
