/**
 * The commands Claude Code's Bash tool runs see no agent token: the adapter sets
 * CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1 (its Anthropic key, the token, is removed from their
 * environment) and gives Claude Code no other variable holding the token. The real Claude Code as a
 * peer, sandbox on; its Bash command writes the fix only when its environment holds no token.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../src/core/events.js';
import type { ScriptedPolicy } from '../../src/model/index.js';
import type { Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

const CLAUDE = join(
  import.meta.dirname,
  '..',
  '..',
  'node_modules',
  '@anthropic-ai',
  'claude-code',
  'cli.js',
);
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

let store: Store;
let fake: FakeProvider;
beforeAll(async () => {
  store = await openTestStore();
  fake = await startFakeProvider({ policy, requireKey: 'sk-ant-real' });
});
afterAll(async () => {
  await fake?.close();
  await store?.close();
});

const ofKind = <K extends StoredEvent['kind']>(events: StoredEvent[], kind: K) =>
  events.filter((e): e is StoredEvent<K> => e.kind === kind);

describe.skipIf(!existsSync(CLAUDE))('--agent-cli claude-code: Bash without the token', () => {
  it("runs Claude Code's Bash commands without the agent token in their environment", async () => {
    const r = createUserRepo(
      { 'README.md': '# m\n', 'src/alpha/value.txt': 'broken\n' },
      'colony-claude-bash-',
    );
    const result = await colony(
      [
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
      ],
      {
        env: { ...NO_API_KEYS, ANTHROPIC_API_KEY: 'sk-ant-real', ANTHROPIC_BASE_URL: '' },
        timeoutMs: 240_000,
      },
    );
    const summary = lastJsonLine(result.stdout);
    const runId = summary.runId as string;
    const events = runId ? await store.log.read(runId) : [];
    const results = fake
      .requests()
      .flatMap((q) => q.request?.messages ?? [])
      .filter((m) => m.role === 'tool')
      .map((m) => m.content.slice(0, 300));
    const context = `${[...new Set(results)].join('\n')}\n${result.stderr}\n${events.map((e) => `${e.kind} ${JSON.stringify(e.data).slice(0, 600)}`).join('\n')}`;
    expect(summary.status, context).toBe('succeeded');
    const tools = ofKind(events, 'model.response').flatMap((e) => e.data.turn.toolCalls.map((c) => c.name));
    expect(tools).toContain('Bash');
    const onBranch = execFileSync('git', ['-C', r.dir, 'show', `colony/${runId}:src/alpha/value.txt`], {
      encoding: 'utf8',
    });
    expect(onBranch).toBe('fixed alpha\n');
  }, 300_000);
});
