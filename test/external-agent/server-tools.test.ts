/**
 * Server-side tools through a real run (issue 27): a `cmd:` agent in the sandbox asks the vendor,
 * through Colony's model proxy, for its web search. Without `--allow-network` the proxy refuses it
 * (400, the message the agent's client shows) and the fake provider never sees it; with
 * `--allow-network` (the run spec's sandbox setting) it is forwarded.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  brokenModulesRepo,
  OPENAI_CHAT,
  ofAgent,
  runColony,
  useFakeProvider,
  useTestStore,
} from './harness.js';

const AGENT = `cmd:node ${join(import.meta.dirname, 'web-search-agent.mjs')}`;
const store = useTestStore();
const fake = useFakeProvider({ policy: () => ({ text: 'found it' }), requireKey: OPENAI_CHAT.key });

const searches = () =>
  fake()
    .requests()
    .filter((q) => JSON.stringify(q.body).includes('web_search_options'));

function run(extra: string[]) {
  return runColony(store(), {
    topology: 'peers',
    agents: 1,
    repo: brokenModulesRepo(['alpha'], 'colony-server-tools-').dir,
    goal: 'search',
    access: OPENAI_CHAT,
    url: fake().url,
    verify: 'true',
    extra: ['--agent-cli', AGENT, ...extra],
    timeoutMs: 120_000,
  });
}

describe('server-side tools of a CLI agent', () => {
  it('without --allow-network: refused with a 400 the agent sees, never forwarded', async () => {
    const { events, context } = await run([]);
    const finished = ofAgent(events, 'agent.finished', 'peer-1')[0];
    expect(finished?.data.finalText, context).toContain('refused: 400');
    expect(finished?.data.finalText).toContain('--allow-network');
    expect(searches()).toHaveLength(0);
  }, 180_000);

  it('with --allow-network: forwarded to the vendor', async () => {
    const { events, context } = await run(['--allow-network']);
    const finished = ofAgent(events, 'agent.finished', 'peer-1')[0];
    expect(finished?.data.finalText, context).toContain('answered: found it');
    expect(searches()).toHaveLength(1);
  }, 180_000);
});
