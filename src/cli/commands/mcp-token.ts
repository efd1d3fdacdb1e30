/**
 * `colony mcp token RUN --agent NAME`: the agent token `colony mcp` needs, printed alone on stdout
 * so it can go straight into COLONY_AGENT_TOKEN. Whoever can open the run's database can read its
 * secret anyway, so issuing asks nothing more of them.
 */

import { RESERVED_AGENT_NAMES } from '../../agent/direct-message.js';
import { isSafeAgentName } from '../../auth/index.js';
import { parseDurationMs } from '../../core/duration.js';
import { parseFlags, UsageError } from '../args.js';
import { issueRunAgentToken } from '../mcp-token.js';
import { CliFailure, requireRun, withStore } from '../store-access.js';

export const MCP_TOKEN_HELP = `colony mcp token RUN --agent NAME [--ttl DURATION]

Issues the agent token colony mcp needs (COLONY_AGENT_TOKEN): agent NAME of run RUN, for the MCP
tools only (scope mcp), valid for --ttl (default 24h). The token alone goes to stdout, what it is to
stderr:

  export COLONY_AGENT_TOKEN=$(colony mcp token RUN --agent ext-1)

NAME is the agent an external agent CLI joins the run as (a new name: every coordination tool acts
in it); user, colony and integration are reserved. Only runs started with --workers keep their token
secret in the database today, so only they can have one. Anyone with the token acts as NAME in the run
until it expires or the run's owner is resumed (which replaces the secret): keep it like a password.`;

const DEFAULT_TTL = '24h';

export async function mcpTokenCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { agent: { type: 'string' }, ttl: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    'mcp token',
  );
  if (values.help) {
    process.stdout.write(`${MCP_TOKEN_HELP}\n`);
    return 0;
  }
  const [runId, ...extra] = positionals;
  if (!runId || extra.length > 0) throw new UsageError('mcp token: usage: colony mcp token RUN --agent NAME');
  const agent = values.agent?.trim() ?? '';
  if (agent === '') throw new UsageError('mcp token: give the agent it is for: --agent NAME');
  if (RESERVED_AGENT_NAMES.has(agent))
    throw new UsageError(
      `mcp token: "${agent}" is reserved (user, colony, integration): choose another name`,
    );
  if (!isSafeAgentName(agent))
    throw new UsageError(
      `mcp token: "${agent}" is not an agent name (letters, digits, . _ -; starting with a letter or digit)`,
    );
  const ttlMs = parseDurationMs(values.ttl ?? DEFAULT_TTL);
  if (ttlMs === null || ttlMs <= 0)
    throw new UsageError(`mcp token: --ttl: expected a duration like 90m or 24h, got "${values.ttl}"`);
  return withStore(async (store) => {
    await requireRun(store, runId);
    const expiresAt = Date.now() + Math.round(ttlMs);
    const issued = await issueRunAgentToken(store.pool, runId, agent, expiresAt);
    if (!issued.ok) throw new CliFailure(`mcp token: ${issued.error}`);
    process.stdout.write(`${issued.value}\n`);
    process.stderr.write(
      `token of agent ${agent} in run ${runId}, expires at ${new Date(expiresAt).toISOString()} (mcp scope only); ` +
        'give it to colony mcp as COLONY_AGENT_TOKEN\n',
    );
    return 0;
  });
}
