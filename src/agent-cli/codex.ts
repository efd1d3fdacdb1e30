/**
 * `--agent-cli codex`: `codex exec --json` with a config.toml in its own CODEX_HOME (the agent's
 * config folder under the run folder): the model provider `colony` (the proxy's Responses route, the
 * agent's token read from COLONY_AGENT_TOKEN), the colony MCP server over HTTP (the same token as
 * Bearer, marked required), no approvals and Codex's own sandbox off (the run's sandbox contains
 * it), the peer prompt as developer instructions. Its JSONL events: `thread.started` (the thread id,
 * kept for `codex exec resume`), `turn.completed`, `turn.failed` / `error`.
 *
 * UNVERIFIED here: the Codex CLI was not run on this machine (docs/agent-cli.md says what is known to
 * work); the config keys and events follow Codex's documentation of the pinned version.
 */
import { join } from 'node:path';
import { type Adapter, colonyEnv, type LineSignal } from './adapter.js';

export const CODEX_PACKAGE = '@openai/codex';
export const CODEX_VERSION = '0.171.0';

/** A TOML basic string. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

export function codexConfig(input: { mcpUrl: string; modelUrl: string; system: string }): string {
  return [
    'model_provider = "colony"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    `developer_instructions = ${tomlString(input.system)}`,
    '',
    '[model_providers.colony]',
    'name = "Colony"',
    `base_url = ${tomlString(`${input.modelUrl.replace(/\/+$/, '')}/v1`)}`,
    'env_key = "COLONY_AGENT_TOKEN"',
    'wire_api = "responses"',
    '',
    '[mcp_servers.colony]',
    `url = ${tomlString(input.mcpUrl)}`,
    'bearer_token_env_var = "COLONY_AGENT_TOKEN"',
    'required = true',
    '',
  ].join('\n');
}

export const codexAdapter: Adapter = (input) => {
  const binary = input.command ?? 'codex';
  const argv = input.resumeSession
    ? [binary, 'exec', '--json', '--skip-git-repo-check', 'resume', input.resumeSession, input.goal]
    : [binary, 'exec', '--json', '--skip-git-repo-check', input.goal];
  return {
    argv,
    env: { ...colonyEnv(input), CODEX_HOME: join(input.home, '.codex') },
    files: [{ path: join(input.hostHome, '.codex', 'config.toml'), content: codexConfig(input) }],
    input: null,
    readLine: readCodexLine,
  };
};

export function readCodexLine(line: string): LineSignal | null {
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (event.type === 'thread.started' && typeof event.thread_id === 'string')
    return { kind: 'session', sessionId: event.thread_id };
  if (event.type === 'turn.failed' || event.type === 'error') {
    const error = event.error as { message?: string } | undefined;
    const message = error?.message ?? (typeof event.message === 'string' ? event.message : line);
    return { kind: 'result', ok: false, text: message };
  }
  if (event.type === 'turn.completed') return { kind: 'result', ok: true, text: '' };
  return { kind: 'activity' };
}
