import { AGENT_TOKEN_PREFIX, unverifiedTokenRun } from '../../auth/index.js';
import { createCoordination, runLeaseOptions } from '../../coord/index.js';
import { createWhoamiTool, mcpAgentTools, renewSessionClaims, serveMcpStdio } from '../../mcp/index.js';
import { parseStoredRunSpec } from '../../run/run-spec-schema.js';
import type { EventLog } from '../../store/types.js';
import { parseFlags, UsageError } from '../args.js';
import { checkRunAgentToken } from '../mcp-token.js';
import { CliFailure, requireRun, withStore } from '../store-access.js';
import { mcpTokenCommand } from './mcp-token.js';

export const MCP_HELP = `colony mcp
colony mcp token RUN --agent NAME [--ttl 24h]

Serves Colony's coordination tools to one agent as an MCP server on stdin/stdout: an agent CLI
(Claude Code, …) starts it as its MCP server and joins a run as a peer. The agent and the run are
the ones named by the agent's token, which is read from the environment only:

  COLONY_AGENT_TOKEN   the agent's token (colony_at_…, with the mcp scope). Never on the command
                       line: other users of the machine can read a process's arguments.
                       Get one with: colony mcp token RUN --agent NAME (colony mcp token --help)
  COLONY_DATABASE_URL  the run's Postgres (default: the embedded one under $COLONY_HOME)

Tools: whoami (agent, run, token expiry), context_post, context_read, context_unfold,
message_send, message_read, claim, release, tasks_add, tasks_ready, claim_next — all acting as the
token's agent. Not merge_request, merge_status or sync: they need the agent's repository and the
run's integration queue, which live with the run's owner (its MCP server over HTTP serves them).

The token is checked with the run's secret at start (a bad token ends the command) and again
before every tool call: an expired or revoked token, or a run that has ended, gets a tool error.
Today only runs started with --workers keep their token secret in the database. The agent's claims
are renewed while stdin is open and the token holds (with the run's lease); once it closes they lapse
after the lease. See docs/mcp.md.

Example (an MCP client's server entry):
  {"command": "colony", "args": ["mcp"], "env": {"COLONY_AGENT_TOKEN": "colony_at_…"}}`;

export async function mcpCommand(argv: string[]): Promise<number> {
  if (argv[0] === 'token') return mcpTokenCommand(argv.slice(1));
  if (argv.some((arg) => arg.includes(AGENT_TOKEN_PREFIX)))
    throw new UsageError(
      'mcp: never pass a token on the command line (other users can read it): set COLONY_AGENT_TOKEN',
    );
  const { values, positionals } = parseFlags(argv, { help: { type: 'boolean', short: 'h' } }, 'mcp');
  if (values.help) {
    process.stdout.write(`${MCP_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`mcp: unexpected argument "${positionals[0]}"`);
  const token = process.env.COLONY_AGENT_TOKEN?.trim() ?? '';
  if (token === '')
    throw new UsageError(
      "mcp: set COLONY_AGENT_TOKEN to the agent's token; get one with colony mcp token RUN --agent NAME",
    );
  const runId = unverifiedTokenRun(token);
  if (runId === null) throw new CliFailure('mcp: COLONY_AGENT_TOKEN is not a Colony agent token');

  return withStore(async (store) => {
    await requireRun(store, runId);
    const first = await checkRunAgentToken(store.pool, runId, token, Date.now());
    if (!first.ok) throw new CliFailure(`mcp: ${first.error}`);
    const claims = first.value;
    // The agent's claims get the run's lease, as its in-process peers' do.
    const coord = await createCoordination(store, runLeaseOptions(await claimLeaseOf(store.log, runId)));
    const tokenCheck = () => checkRunAgentToken(store.pool, runId, token, Date.now());
    let server: Awaited<ReturnType<typeof serveMcpStdio>> | null = null;
    const stop = () => void server?.close();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    let heartbeat: { stop(): void } | null = null;
    try {
      server = await serveMcpStdio({
        tools: [createWhoamiTool(claims), ...(await mcpAgentTools({ coord })(claims))],
        guard: async () => {
          const now = await tokenCheck();
          return now.ok ? null : `refused: ${now.error}`;
        },
      });
      heartbeat = renewSessionClaims(
        coord.claims,
        { runId, agent: claims.agent },
        async () => (await tokenCheck()).ok,
      );
      process.stderr.write(`colony mcp: serving ${claims.agent} of run ${runId} on stdio\n`);
      await server.closed;
      return 0;
    } finally {
      heartbeat?.stop();
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      await coord.close();
    }
  });
}

/** The run's claim lease as its recorded spec sets it (undefined: the default lease). */
async function claimLeaseOf(log: EventLog, runId: string): Promise<number | undefined> {
  const [started] = await log.read(runId, { kinds: ['run.started'], limit: 1 });
  const spec = started ? parseStoredRunSpec(started.data.config) : null;
  return spec?.ok ? spec.spec.claimLeaseMs : undefined;
}
