/**
 * Driving an agent's loop with an external CLI: the same agent a built-in peer is (its checkout,
 * claims, coordination services, log) with the CLI in place of Colony's loop. The host server serves
 * its Colony tools and proxies its model calls; this starts the CLI with its adapter, reads its
 * events, hands it direct messages where it takes them, and ends it on abort. Logs `agent.cli`
 * (started, session, exited) and `agent.finished` as the loop does; the outcome is an AgentOutcome.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createInterface } from 'node:readline';
import { type AgentOutcome, abortedOutcome } from '../agent/loop.js';
import { isKind, type StoredEvent } from '../core/events.js';
import type { Message } from '../model/types.js';
import type { AgentCliChoice } from '../run/run-spec.js';
import type { Sandbox } from '../sandbox/index.js';
import type { EventLog } from '../store/types.js';
import type { LineSignal } from './adapter.js';
import { adapterFor } from './adapters.js';
import { type AgentCliServer, MCP_PATH, MODEL_PATH } from './host-server.js';
import { homeSeen, killGroup, startCli } from './launch.js';

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
  const resumeSession = options.history
    .filter(isKind('agent.cli'))
    .filter((e) => e.data.sessionId)
    .at(-1)?.data.sessionId;
  const launch = adapterFor(cli.kind)({
    agent,
    goal: options.goal,
    system: options.system,
    mcpUrl: `${address.url}${MCP_PATH}`,
    modelUrl: `${address.url}${MODEL_PATH}`,
    token: options.token,
    home: homeSeen(place),
    hostHome: options.agentHome,
    command: cli.command,
    resumeSession: cli.kind === 'cmd' ? undefined : resumeSession,
    colonyTools: options.colonyTools,
    ...(options.model ? { model: options.model } : {}),
  });
  for (const file of launch.files) {
    mkdirSync(dirname(file.path), { recursive: true, mode: 0o700 });
    writeFileSync(file.path, file.content, { mode: 0o600 });
  }

  const child = startCli(launch, place);
  let tail = '';
  const keep = (chunk: string) => {
    tail = (tail + chunk).slice(-TAIL_BYTES);
  };
  let failure: string | null = null;
  let result: Extract<LineSignal, { kind: 'result' }> | null = null;
  const spawnError = new Promise<string>((resolve) => child.once('error', (e) => resolve(e.message)));
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code, signal) => resolve(code ?? (signal ? 128 : null))),
  );
  await emit('agent.cli', { cli: cli.kind, event: 'started', ...(child.pid ? { pid: child.pid } : {}) });

  const pending: Promise<void>[] = [];
  const lines = child.stdout ? createInterface({ input: child.stdout }) : null;
  const errorLines = child.stderr && launch.readErrorLine ? createInterface({ input: child.stderr }) : null;
  if (errorLines)
    errorLines.on('line', (line) => {
      keep(`${line}\n`);
      onSignal(launch.readErrorLine?.(line) ?? null);
    });
  else child.stderr?.setEncoding('utf8').on('data', keep);
  lines?.on('line', (line) => {
    if (!launch.readLine) return keep(`${line}\n`);
    onSignal(launch.readLine(line));
  });
  function onSignal(signal: LineSignal | null): void {
    if (!signal || signal.kind === 'activity') return;
    if (signal.kind === 'session') {
      pending.push(emit('agent.cli', { cli: cli.kind, event: 'session', sessionId: signal.sessionId }));
    } else if (signal.kind === 'fail') {
      failure ??= signal.reason;
      killGroup(child);
    } else if (signal.kind === 'result') {
      result = signal;
      keep(`${signal.text}\n`);
    }
    if (launch.endInputOn === signal.kind) child.stdin?.end();
  }
  child.stdin?.on('error', () => {});
  if (launch.input !== null) child.stdin?.write(launch.input);
  if (!launch.endInputOn) child.stdin?.end();

  const onAbort = () => {
    killGroup(child);
    setTimeout(() => killGroup(child, 'SIGKILL'), 5000).unref();
  };
  options.signal.addEventListener('abort', onAbort, { once: true });
  const poll =
    launch.messageLine && options.messages
      ? setInterval(() => void deliver(), options.messagePollMs ?? 1000)
      : null;
  let delivering = false;
  async function deliver(): Promise<void> {
    if (delivering || !options.messages || !launch.messageLine || child.stdin?.writableEnded) return;
    delivering = true;
    try {
      for (const message of await options.messages())
        if (message.role === 'user') child.stdin?.write(launch.messageLine(message.content));
    } finally {
      delivering = false;
    }
  }

  const ended = await Promise.race([
    exited.then((code) => ({ code })),
    spawnError.then((error) => ({ error })),
  ]);
  if (poll) clearInterval(poll);
  options.signal.removeEventListener('abort', onAbort);
  lines?.close();
  errorLines?.close();
  await Promise.all(pending);
  const code = 'code' in ended ? ended.code : null;
  await emit('agent.cli', {
    cli: cli.kind,
    event: 'exited',
    exitCode: code,
    ...('error' in ended ? { detail: ended.error } : {}),
  });
  const output = tail.trim();
  const finalText = (result as Extract<LineSignal, { kind: 'result' }> | null)?.text ?? output.slice(-1000);
  if (options.signal.aborted) return finish(abortedOutcome(options.signal, { steps: 0, finalText }));
  const what = cli.kind === 'cmd' ? `cmd \`${cli.command}\`` : cli.kind;
  if ('error' in ended)
    return finish({
      status: 'failed',
      stopReason: 'cli_failed',
      reason: `${what} could not start: ${ended.error}`,
      finalText,
    });
  if (failure)
    return finish({
      status: 'failed',
      stopReason: 'cli_failed',
      reason: `${failure}${outputNote(output)}`,
      finalText,
    });
  const answered = result as Extract<LineSignal, { kind: 'result' }> | null;
  if (code === 0 && (answered === null || answered.ok))
    return finish({
      status: 'done',
      stopReason: 'answered',
      reason: `${what} exited 0${outputNote(output)}`,
      finalText,
    });
  return finish({
    status: 'failed',
    stopReason: 'cli_failed',
    reason: `${what} ${answered && !answered.ok ? 'reported an error' : `exited ${code}`}${outputNote(output)}`,
    finalText,
  });
}

function outputNote(output: string): string {
  return output ? `; output: ${output.slice(-TAIL_BYTES)}` : '';
}
