/**
 * The commands Claude Code's Bash tool runs see no agent token: the adapter sets
 * CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1 (its Anthropic key, the token, is removed from their
 * environment) and gives Claude Code no other variable holding the token. The real Claude Code as a
 * peer, sandbox on; its Bash command writes the fix only when its environment holds no token.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import {
  ANTHROPIC,
  brokenModulesRepo,
  CLAUDE_CODE_CLI,
  ofKind,
  onResultBranch,
  runCliPeer,
  useFakeProvider,
  useTestStore,
} from './harness.js';

// `env` lists the command's whole environment: no value may be a Colony token (colony_at_…).
const COMMAND =
  'if env | grep -q colony_at_; then echo leaked > src/alpha/value.txt; else echo "fixed alpha" > src/alpha/value.txt; fi';

const policy: ScriptedPolicy = (request) => {
  if (request.tools.length === 0) return { text: 'ok' };
  const calls = request.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
  const last = calls.at(-1)?.name;
  const call = (name: string, args: unknown) => ({ toolCalls: [{ name, arguments: args }] });
  if (!last) return call('mcp__colony__claim', { scope: 'src/alpha/', summary: 'fix alpha' });
  if (last === 'mcp__colony__claim') return call('Bash', { command: COMMAND, description: 'fix alpha' });
  if (last === 'Bash') return call('mcp__colony__merge_request', { note: 'fix alpha' });
  if (last === 'mcp__colony__merge_request')
    return call('mcp__colony__release', { scope: 'src/alpha/', outcome: 'fixed alpha' });
  return { text: 'done' };
};

const store = useTestStore();
const fake = useFakeProvider({ policy, requireKey: ANTHROPIC.key });

describe.skipIf(!existsSync(CLAUDE_CODE_CLI))('--agent-cli claude-code: Bash without the token', () => {
  it("runs Claude Code's Bash commands without the agent token in their environment", async () => {
    const r = brokenModulesRepo(['alpha'], 'colony-claude-bash-');
    const run = await runCliPeer(store(), fake(), { cli: 'claude-code', repo: r.dir });
    const { summary, runId, events } = run;
    const results = fake()
      .requests()
      .flatMap((q) => q.request?.messages ?? [])
      .filter((m) => m.role === 'tool')
      .map((m) => m.content.slice(0, 300));
    const context = `${[...new Set(results)].join('\n')}\n${run.context}`;
    expect(summary.status, context).toBe('succeeded');
    const tools = ofKind(events, 'model.response').flatMap((e) => e.data.turn.toolCalls.map((c) => c.name));
    expect(tools).toContain('Bash');
    expect(onResultBranch(r.dir, runId, 'src/alpha/value.txt')).toBe('fixed alpha\n');
  }, 300_000);
});
