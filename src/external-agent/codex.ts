/**
 * `--agent-cli codex`: `codex exec --json --strict-config` with a config.toml in its own CODEX_HOME
 * (the agent's config folder under the run folder): the model provider `colony` (the proxy's
 * Responses route, the agent's token read from COLONY_AGENT_TOKEN), the agent's model by name (Codex
 * picks its prompt and tool layout by it), the colony MCP server over Streamable HTTP (the same token
 * as Bearer, `required`: Codex will not start without it), no approvals and Codex's own sandbox off
 * (the run's sandbox contains it), the token kept from the commands it runs, no web search,
 * sub-agents, analytics or update checks, the peer prompt as developer instructions.
 * `--strict-config` makes a key this version does not know an error.
 *
 * Verified with the pinned 0.171.0 (test/external-agent/codex.test.ts). What it does:
 * - Model calls: streamed `POST <base_url>/responses`; Colony's tools come as a Responses `namespace`
 *   tool `mcp__colony` (calls name it: `{type:'function_call', namespace:'mcp__colony', name:'claim'}`),
 *   its own tools as functions (`exec_command` runs `bash -lc`; a model Codex has no metadata for gets
 *   this plain layout and an `error` item warning about it).
 * - stdout JSONL: `thread.started` (the thread id, kept for `codex exec resume`), `turn.started`,
 *   `item.started`/`item.completed` (`agent_message`, `mcp_tool_call`, `command_execution`, `error`
 *   warnings), `error` (`Reconnecting... n/5`: a retry), `turn.completed` (usage) or `turn.failed`.
 * - A required MCP server that does not come up: no JSONL at all, exit 1, and on stderr
 *   `required MCP servers failed to initialize: colony: …` (read here: the agent fails with that).
 */
import { join } from 'node:path';
import { type Adapter, colonyEnv, type LineSignal, RESUME_TEXT } from './adapter.js';

export const CODEX_PACKAGE = '@openai/codex';
export const CODEX_VERSION = '0.171.0';
const MCP_SERVER = 'colony';

/** A TOML basic string. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

export function codexConfig(input: {
  mcpUrl: string;
  modelUrl: string;
  system: string;
  model?: string;
}): string {
  return [
    ...(input.model ? [`model = ${tomlString(input.model)}`] : []),
    'model_provider = "colony"',
    'approval_policy = "never"',
    'sandbox_mode = "danger-full-access"',
    'web_search = "disabled"',
    'check_for_update_on_startup = false',
    `developer_instructions = ${tomlString(input.system)}`,
    '',
    '[model_providers.colony]',
    'name = "Colony"',
    `base_url = ${tomlString(`${input.modelUrl.replace(/\/+$/, '')}/v1`)}`,
    'env_key = "COLONY_AGENT_TOKEN"',
    'wire_api = "responses"',
    '',
    `[mcp_servers.${MCP_SERVER}]`,
    `url = ${tomlString(input.mcpUrl)}`,
    'bearer_token_env_var = "COLONY_AGENT_TOKEN"',
    'required = true',
    // Colony's tools may wait on the hub (sync, merge_request): more than Codex's default minute.
    'tool_timeout_sec = 600',
    '',
    // Codex needs the token (model calls, MCP); the commands it runs do not.
    '[shell_environment_policy]',
    'exclude = ["COLONY_AGENT_TOKEN", "*_API_KEY", "*_AUTH_TOKEN"]',
    '',
    '[analytics]',
    'enabled = false',
    '',
    // Codex's own sub-agents would work outside Colony's claims and checkouts.
    '[agents]',
    'enabled = false',
    '',
  ].join('\n');
}

export const codexAdapter: Adapter = (input) => {
  const binary = input.command ?? 'codex';
  const exec = [binary, 'exec', '--json', '--strict-config', '--skip-git-repo-check'];
  return {
    argv: input.resumeSession
      ? [...exec, 'resume', input.resumeSession, input.resumeText ?? RESUME_TEXT]
      : [...exec, input.goal],
    env: { ...colonyEnv(input), CODEX_HOME: join(input.home, '.codex') },
    files: [{ path: '.codex/config.toml', content: codexConfig(input) }],
    input: null,
    readLine: codexLineReader(),
    readErrorLine: readCodexErrorLine,
    reportsResult: true,
  };
};

/** Reads Codex's JSONL events; the answer is its last agent message. */
export function codexLineReader(): (line: string) => LineSignal | null {
  let lastMessage = '';
  return (line) => {
    const event = parseObject(line);
    if (!event) return null;
    if (event.type === 'thread.started' && typeof event.thread_id === 'string')
      return { kind: 'session', sessionId: event.thread_id };
    const item = isObject(event.item) ? event.item : undefined;
    if (event.type === 'item.completed' && item?.type === 'agent_message' && typeof item.text === 'string')
      lastMessage = item.text;
    if (event.type === 'turn.completed') return { kind: 'result', ok: true, text: lastMessage };
    if (event.type === 'turn.failed' || event.type === 'error') {
      const error = isObject(event.error) ? event.error : undefined;
      const message =
        typeof error?.message === 'string'
          ? error.message
          : typeof event.message === 'string'
            ? event.message
            : line;
      // "Reconnecting... 2/5 (…)": Codex retries the call itself; it is waiting, not failed.
      if (event.type === 'error' && message.startsWith('Reconnecting')) return { kind: 'activity' };
      return { kind: 'result', ok: false, text: message };
    }
    return { kind: 'activity' };
  };
}

const MCP_DOWN = /required MCP servers failed to initialize: (.*)$/;

/** Codex's stderr: a required MCP server that did not come up ends it before any JSONL event. */
export function readCodexErrorLine(line: string): LineSignal | null {
  const match = MCP_DOWN.exec(line);
  if (!match?.[1]) return null;
  // Its message names the client's Rust types (`Transport [Outer<Inner<…>>]`) and repeats itself.
  const [what = '', first = ''] = match[1]
    .replace(/ Transport \[[^\]]*\]/g, '')
    .split(': Send message error');
  const cause = first ? `${what}: ${first.replace(/^\s*error:\s*/, '')}` : what;
  return {
    kind: 'fail',
    reason: `Codex's MCP connection to Colony is not up (${cause.slice(0, 500)})`,
  };
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function parseObject(line: string): Json | null {
  try {
    const value: unknown = JSON.parse(line);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}
