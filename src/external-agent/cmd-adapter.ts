/**
 * `--agent-cli 'cmd:<command>'`: any command, run with `sh -c` in the agent's checkout. It gets the
 * Colony endpoints in its environment (colonyEnv: COLONY_MCP_URL, COLONY_AGENT_TOKEN, the model proxy
 * as ANTHROPIC_/OPENAI_BASE_URL with the token as the key, COLONY_GOAL, COLONY_SYSTEM_PROMPT). Exit 0
 * means done, anything else failed.
 */
import { type Adapter, colonyEnv } from './adapter.js';

export const cmdAdapter: Adapter = (input) => ({
  argv: ['sh', '-c', input.command ?? 'false'],
  env: colonyEnv(input),
  files: [],
  input: null,
});
