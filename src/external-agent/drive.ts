/**
 * Driving an agent's loop with an external CLI: the same agent a built-in one is (its checkout,
 * claims, coordination services, log) with the CLI in place of Colony's loop. The host server serves
 * its Colony tools and proxies its model calls; this starts the CLI with its adapter (one process:
 * cli-process.ts), restarts it after a crash resuming its session (at most MAX_RESTARTS times), and
 * ends it on abort. Logs `agent.cli` (started, session, restarted, exited) and `agent.finished` as
 * the loop does; the outcome is an AgentOutcome.
 */
import { mkdirSync } from 'node:fs';
import { type AgentOutcome, abortedOutcome } from '../agent/loop.js';
import { isKind, type StoredEvent } from '../core/events.js';
import type { Message } from '../model/types.js';
import type { AgentCliChoice } from '../run/run-spec.js';
import type { Sandbox } from '../sandbox/index.js';
import type { EventLog } from '../store/types.js';
import { adapterFor } from './adapters.js';
import { type CliProcessEnd, isCrash, runCliProcess } from './cli-process.js';
import { writeHomeFiles } from './home-files.js';
import { type AgentCliServer, MCP_PATH, MODEL_PATH } from './host-server.js';
import { homeSeen } from './launch.js';

/** Restarts of a crashed CLI within one run process (a resumed run starts counting again). */
export const MAX_RESTARTS = 2;

export interface DriveCliOptions {
  cli: AgentCliChoice;
  runId: string;
  agent: string;
  goal: string;
  system: string;
  worktree: string;
  /** The agent's own config folder on the host (created if missing). */
  agentHome: string;
  server: AgentCliServer;
  token: string;
  /** Colony's tools served to the agent over MCP. */
  colonyTools: string[];
  /** The wire name of the agent's model (the proxy forwards to it whatever the CLI asks for). */
  model?: string;
  sandbox: Sandbox | null;
  baseEnv: NodeJS.ProcessEnv;
  log: EventLog;
  /** The agent's log so far (a logged session is resumed). */
  history: readonly StoredEvent[];
  /**
   * What a logged session is told when it is resumed (a subagent's next task); default: that it
   * was restarted after a crash.
   */
  resumeText?: string;
  signal: AbortSignal;
  /** Direct messages for the agent (delivered to CLIs that take input while they run). */
  messages?: () => Promise<Message[]>;
  /** How often direct messages are looked for (default 1 s). */
  messagePollMs?: number;
}

const TAIL_BYTES = 4000;

export async function driveCli(options: DriveCliOptions): Promise<AgentOutcome> {
  const { cli, runId, agent, log } = options;
  const emit = async (kind: 'agent.cli', data: StoredEvent<'agent.cli'>['data']) => {
    await log.append({ runId, agent, kind, data });
  };
  const finish = async (outcome: Omit<AgentOutcome, 'steps'>): Promise<AgentOutcome> => {
    await log.flush();
    const steps = (await log.read(runId, { agent, kinds: ['model.response'] })).length;
    const full = { ...outcome, steps };
    await log.append({
      runId,
      agent,
      kind: 'agent.finished',
      data: {
        status: full.status,
        stopReason: full.stopReason,
        reason: full.reason,
        steps,
        finalText: full.finalText,
      },
    });
    return full;
  };
  if (options.signal.aborted) return finish(abortedOutcome(options.signal, { steps: 0, finalText: '' }));
  const address = await options.server.address();
  mkdirSync(options.agentHome, { recursive: true, mode: 0o700 });
  const place = { ...options, port: address.port, socket: address.socket };
  // cmd: has no session: a restarted command starts fresh (COLONY_RESTART says it is one).
  let session =
    cli.kind === 'cmd'
      ? undefined
      : options.history
          .filter(isKind('agent.cli'))
          .filter((e) => e.data.sessionId)
          .at(-1)?.data.sessionId;
  let resumeText = options.resumeText;
  for (let restart = 0; ; restart++) {
    const launch = adapterFor(cli.kind)({
      agent,
      goal: options.goal,
      system: options.system,
      mcpUrl: `${address.url}${MCP_PATH}`,
      modelUrl: `${address.url}${MODEL_PATH}`,
      token: options.token,
      home: homeSeen(place),
      command: cli.command,
      ...(session ? { resumeSession: session } : {}),
      ...(resumeText ? { resumeText } : {}),
      restart,
      colonyTools: options.colonyTools,
      ...(options.model ? { model: options.model } : {}),
    });
    // The home is the agent's to write (in its sandbox): nothing is written through a link in it.
    const written = await writeHomeFiles(options.agentHome, launch.files);
    if (!written.ok)
      return finish({ status: 'failed', stopReason: 'cli_failed', reason: written.error, finalText: '' });
    const end = await runCliProcess(launch, place, {
      started: (pid) => emit('agent.cli', { cli: cli.kind, event: 'started', ...(pid ? { pid } : {}) }),
      session: (sessionId) => emit('agent.cli', { cli: cli.kind, event: 'session', sessionId }),
      signal: options.signal,
      ...(options.messages ? { messages: options.messages } : {}),
      ...(options.messagePollMs ? { messagePollMs: options.messagePollMs } : {}),
    });
    await emit('agent.cli', {
      cli: cli.kind,
      event: 'exited',
      exitCode: end.code,
      ...(end.spawnError !== undefined
        ? { detail: end.spawnError }
        : end.signal
          ? { detail: end.signal }
          : {}),
    });
    if (cli.kind !== 'cmd' && end.sessionId) session = end.sessionId;
    // A session to resume that was never written (killed at once): the goal afresh.
    const lost = session !== undefined && end.result?.sessionNotFound === true;
    if (options.signal.aborted || !(lost || isCrash(end, launch)) || restart >= MAX_RESTARTS)
      return finish(outcomeOf(end, cli, options.signal));
    // Crashed before its result: go on where it was (its session, told it was restarted).
    const detail = lost
      ? `session ${session} was not found; starting afresh`
      : `exited ${end.signal ?? end.code} before its result${session ? `; resuming session ${session}` : ''}`;
    if (lost) session = undefined;
    resumeText = undefined;
    await emit('agent.cli', {
      cli: cli.kind,
      event: 'restarted',
      restart: restart + 1,
      detail,
      ...(session ? { sessionId: session } : {}),
    });
  }
}

function outcomeOf(
  end: CliProcessEnd,
  cli: AgentCliChoice,
  signal: AbortSignal,
): Omit<AgentOutcome, 'steps'> {
  const output = end.tail.trim();
  const finalText = end.result?.text ?? output.slice(-1000);
  if (signal.aborted) return abortedOutcome(signal, { steps: 0, finalText });
  const what = cli.kind === 'cmd' ? `cmd \`${cli.command}\`` : cli.kind;
  const failed = (reason: string) => ({
    status: 'failed' as const,
    stopReason: 'cli_failed' as const,
    reason,
    finalText,
  });
  if (end.spawnError !== undefined) return failed(`${what} could not start: ${end.spawnError}`);
  if (end.failure) return failed(`${end.failure}${outputNote(output)}`);
  const answered = end.result;
  if (end.code === 0 && (answered === null || answered.ok))
    return {
      status: 'done',
      stopReason: 'answered',
      reason: `${what} exited 0${outputNote(output)}`,
      finalText,
    };
  const how = answered && !answered.ok ? 'reported an error' : `exited ${end.signal ?? end.code}`;
  return failed(`${what} ${how}${outputNote(output)}`);
}

function outputNote(output: string): string {
  return output ? `; output: ${output.slice(-TAIL_BYTES)}` : '';
}
