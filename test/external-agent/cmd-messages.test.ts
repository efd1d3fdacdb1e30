/**
 * Direct messages to an external agent that takes no input while it runs (a `cmd:` agent; Codex
 * the same): they come with its next Colony tool result over MCP and are marked read. A built-in
 * peer-1 sends peer-2 (the mini agent) a direct message; peer-2 keeps calling a Colony tool until a
 * result carries it, then fixes its module. The built CLI against the fake provider, sandbox on.
 */
import { describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import {
  brokenModulesRepo,
  MINI_AGENT,
  OPENAI_CHAT,
  ofAgent,
  runColony,
  toolCallsOf,
  useFakeProvider,
  useTestStore,
} from './harness.js';

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

const store = useTestStore();
const fake = useFakeProvider({ policy, requireKey: OPENAI_CHAT.key });

describe('direct messages to a CLI without stdin input', () => {
  it('come with its next Colony tool result and are marked read', async () => {
    const repo = brokenModulesRepo(['beta'], 'colony-cli-msg-');
    const { summary, events, context } = await runColony(store(), {
      topology: 'peers',
      agents: 2,
      repo: repo.dir,
      goal: 'fix every module',
      access: OPENAI_CHAT,
      url: fake().url,
      verify: '! grep -rqx broken src',
      extra: ['--agent-cli-peers', `peer-2=cmd:node ${MINI_AGENT}`],
      timeoutMs: 180_000,
    });
    expect(summary.status, context).toBe('succeeded');
    // Delivered once, as an interruption (not read with message_read), to peer-2.
    const delivered = ofAgent(events, 'message.delivered', 'peer-2');
    expect(
      delivered
        .filter((e) => e.data.messages.some((m) => m.text === PING))
        .map((e) => [e.data.via, e.data.messages.map((m) => [m.from, m.text])]),
      context,
    ).toEqual([['interrupt', [['peer-1', PING]]]]);
    // Whatever else came — integration's "landed" message, when the merge lands before peer-2's last
    // Colony call — came the same way, once.
    const ids = delivered.flatMap((e) => e.data.ids);
    expect(new Set(ids).size, context).toBe(ids.length);
    expect(delivered.every((e) => e.data.via === 'interrupt')).toBe(true);
    // It reached the agent inside a Colony tool result (after the result itself), framed as a
    // direct message, in exactly one result.
    const toolResults = fake()
      .requests()
      .flatMap((q) => q.request?.messages ?? [])
      .filter((m) => m.role === 'tool' && m.content.includes(PING));
    const withPing = new Set(toolResults.map((m) => (m.role === 'tool' ? m.toolCallId : '')));
    expect(withPing.size).toBe(1);
    expect(toolResults[0]?.content).toContain('[Direct message from peer-1');
    const tools = toolCallsOf(events, 'peer-2');
    expect(tools).not.toContain('message_read');
    expect(tools.slice(-3)).toEqual(['write', 'merge_request', 'release']);
  }, 240_000);
});
