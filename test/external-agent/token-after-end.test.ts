/**
 * A CLI agent's token is readable in its home (Claude Code's key file, the MCP config) and stays
 * valid until an hour after the run's deadline; the model proxy accepts it only while that agent's
 * CLI is hosted (issue 27), as the MCP side does. Two `cmd:` peers in the sandbox leave their token
 * and proxy URL in their homes and wait; the test uses peer-1's token while peer-1 runs (answered),
 * lets peer-1 end while peer-2 keeps the run's proxy up, and uses it again: 401, nothing forwarded.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  brokenModulesRepo,
  OPENAI_CHAT,
  ofAgent,
  peerCliFiles,
  runColony,
  useFakeProvider,
  useTestStore,
} from './harness.js';

const LEAK = `leak-${randomUUID()}`;
/** Leaves the proxy URL and the token in its home, then waits for `stop` in its checkout. */
const AGENT = [
  `printf '%s\\n%s\\n' "$OPENAI_BASE_URL" "$COLONY_AGENT_TOKEN" > "$HOME/${LEAK}"`,
  'i=0; while [ ! -f stop ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done',
].join('; ');

const store = useTestStore();
const fake = useFakeProvider({ policy: () => ({ text: 'ok' }), requireKey: OPENAI_CHAT.key });

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const found = await probe();
    if (found !== undefined) return found;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('an agent token after its CLI ended', () => {
  it('is refused by the model proxy (401) while the run goes on', async () => {
    const running = runColony(store(), {
      topology: 'peers',
      agents: 2,
      repo: brokenModulesRepo(['alpha'], 'colony-token-end-').dir,
      goal: 'wait',
      access: OPENAI_CHAT,
      url: fake().url,
      verify: 'true',
      extra: ['--agent-cli', `cmd:${AGENT}`],
      timeoutMs: 240_000,
    });
    const leak = await until('peer-1 to leave its token', () =>
      peerCliFiles('peer-1', '').find((file) => basename(file) === LEAK),
    );
    const [url, token] = readFileSync(leak, 'utf8').trim().split('\n');
    const runDir = leak.slice(0, leak.indexOf('/agent-cli/'));
    const runId = basename(runDir);
    const call = async () => {
      const res = await fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'x', messages: [{ role: 'user', content: 'hi' }] }),
      });
      return { status: res.status, text: await res.text() };
    };
    try {
      // Good while peer-1's CLI runs.
      expect((await call()).status).toBe(200);
      writeFileSync(join(runDir, 'worktrees', 'peer-1', 'stop'), '');
      await until('peer-1 to finish', async () => {
        await store().log.flush();
        const done = await store().log.read(runId, { agent: 'peer-1', kinds: ['agent.finished'] });
        return done.length > 0 ? true : undefined;
      });
      await new Promise((r) => setTimeout(r, 500));
      const seen = fake().requests().length;
      const after = await call();
      expect(after.status, after.text).toBe(401);
      expect(after.text).toContain("agent 'peer-1' is not running here now");
      expect(fake().requests()).toHaveLength(seen);
    } finally {
      writeFileSync(join(runDir, 'worktrees', 'peer-2', 'stop'), '');
      const { events, context } = await running;
      expect(ofAgent(events, 'agent.finished', 'peer-2'), context).toHaveLength(1);
    }
  }, 300_000);
});
