/**
 * `--agent-cli claude-code`: Claude Code in print mode with stream-json in and out
 * (`claude -p --output-format stream-json --verbose --input-format stream-json`), a strict MCP
 * config naming only Colony's server (HTTP, the agent's token as Bearer), Colony's tools and its own
 * file tools pre-approved, the peer prompt appended to its system prompt, its config folder its own
 * (CLAUDE_CONFIG_DIR in the agent's HOME under the run folder, never the user's). Its model calls go
 * to the proxy (ANTHROPIC_BASE_URL, the token as ANTHROPIC_API_KEY).
 *
 * Read from its stdout: the `system/init` event (the session id, kept for `--resume`; the colony MCP
 * server must be `connected`, else the agent fails at once), every event as liveness, the `result`
 * event (then its stdin is closed and it exits). A direct message is written to its stdin as a
 * stream-json user message.
 */
import { join } from 'node:path';
import { type Adapter, colonyEnv, type LineSignal, RESUME_TEXT } from './adapter.js';

export const CLAUDE_CODE_PACKAGE = '@anthropic-ai/claude-code';
export const CLAUDE_CODE_VERSION = '2.1.100';
/** Claude Code's own tools an agent may use without asking (no web tools: the sandbox has no network). */
export const CLAUDE_FILE_TOOLS = ['Read', 'Write', 'Edit', 'MultiEdit', 'Glob', 'Grep', 'LS', 'Bash'];
export const MCP_SERVER = 'colony';
/** The agent's token for Claude Code's apiKeyHelper, in its config folder (mode 0600). */
const KEY_FILE = 'colony-key';

export const claudeCodeAdapter: Adapter = (input) => {
  const mcpConfig = 'colony-mcp.json';
  const mcpConfigSeen = join(input.home, mcpConfig);
  const allowed = [...input.colonyTools.map((name) => `mcp__${MCP_SERVER}__${name}`), ...CLAUDE_FILE_TOOLS];
  const argv = [
    input.command ?? 'claude',
    '-p',
    '--output-format',
    'stream-json',
    '--verbose',
    '--input-format',
    'stream-json',
    '--mcp-config',
    mcpConfigSeen,
    '--strict-mcp-config',
    '--append-system-prompt',
    input.system,
    '--allowedTools',
    allowed.join(','),
    ...(input.resumeSession ? ['--resume', input.resumeSession] : []),
  ];
  const config = {
    mcpServers: {
      [MCP_SERVER]: { type: 'http', url: input.mcpUrl, headers: { Authorization: `Bearer ${input.token}` } },
    },
  };
  // The token is in no variable of Claude Code's (the commands its Bash tool runs inherit them all):
  // its Anthropic key comes from an apiKeyHelper reading a file of its config folder, the MCP
  // server's from the MCP config. (CLAUDE_CODE_SUBPROCESS_ENV_SCRUB would start a bubblewrap sandbox
  // of its own, which cannot start inside Colony's.)
  const {
    COLONY_AGENT_TOKEN: _token,
    OPENAI_API_KEY: _key,
    OPENAI_BASE_URL: _url,
    ANTHROPIC_API_KEY: _anthropicKey,
    ...env
  } = colonyEnv(input);
  const settings = { apiKeyHelper: `cat ${join(input.home, KEY_FILE)}` };
  return {
    argv,
    env: {
      ...env,
      CLAUDE_CONFIG_DIR: join(input.home, '.claude'),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      DISABLE_BUG_COMMAND: '1',
      CLAUDE_CODE_DISABLE_TERMINAL_TITLE: '1',
    },
    files: [
      { path: mcpConfig, content: `${JSON.stringify(config, null, 2)}\n` },
      { path: KEY_FILE, content: input.token },
      { path: '.claude/settings.json', content: `${JSON.stringify(settings)}\n` },
    ],
    input: userMessage(input.resumeSession ? (input.resumeText ?? RESUME_TEXT) : input.goal),
    readLine: readClaudeLine,
    messageLine: userMessage,
    endInputOn: 'result',
    reportsResult: true,
  };
};

/** A stream-json user message (one line). */
export function userMessage(text: string): string {
  return `${JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text }] } })}\n`;
}

/** One line of Claude Code's stream-json output. */
export function readClaudeLine(line: string): LineSignal | null {
  let event: Record<string, unknown>;
  try {
    event = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (event.type === 'system' && event.subtype === 'init') {
    const servers = Array.isArray(event.mcp_servers)
      ? (event.mcp_servers as { name?: string; status?: string }[])
      : [];
    const colony = servers.find((s) => s.name === MCP_SERVER);
    if (colony?.status !== 'connected')
      return {
        kind: 'fail',
        reason: `Claude Code's MCP connection to Colony is not up (init event: ${colony ? `status ${colony.status}` : 'no colony server'})`,
      };
    return typeof event.session_id === 'string'
      ? { kind: 'session', sessionId: event.session_id }
      : { kind: 'activity' };
  }
  if (event.type === 'result') {
    const errors = Array.isArray(event.errors) ? event.errors.filter((e) => typeof e === 'string') : [];
    const text =
      typeof event.result === 'string'
        ? event.result
        : [String(event.subtype ?? ''), ...errors].filter((t) => t !== '').join(': ');
    return {
      kind: 'result',
      ok: event.is_error !== true && event.subtype === 'success',
      text,
      ...(typeof event.num_turns === 'number' ? { turns: event.num_turns } : {}),
      // `--resume` of a session killed before its transcript was written (2.1.100's wording).
      ...(errors.some((e) => e.startsWith('No conversation found with session ID'))
        ? { sessionNotFound: true }
        : {}),
    };
  }
  return { kind: 'activity' };
}
