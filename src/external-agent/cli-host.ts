/**
 * One hosting process's side of a run's CLI-driven agents (a PeerHost holds one): registers the run
 * with the process's host server while any of its CLIs runs (the token secret in memory, the proxy's
 * access to the run's log, budget, rate gate, models and network setting), serves each agent's Colony
 * tools and model calls only while its CLI runs, issues its token and drives its loop (drive.ts).
 */
import { join } from 'node:path';
import type { Budget } from '../agent/budget.js';
import type { AgentOutcome } from '../agent/loop.js';
import type { StoredEvent } from '../core/events.js';
import type { Scrubber } from '../core/secrets.js';
import type { Upstream } from '../model/catalog.js';
import type { Message } from '../model/types.js';
import type { RateGate } from '../run/rate-gate.js';
import type { AgentCliChoice } from '../run/run-spec.js';
import type { Sandbox } from '../sandbox/index.js';
import type { EventLog } from '../store/types.js';
import type { Tool } from '../tool/types.js';
import { takesStdinMessages } from './adapters.js';
import { withDirectMessages } from './direct-messages.js';
import { driveCli } from './drive.js';
import { type AgentCliServer, agentCliServer } from './host-server.js';
import { issueCliToken } from './token.js';

/** What a hosting process gives its CLI-driven agents beyond a built-in agent's. */
export interface AgentCliAccess {
  /** The run's token secret (in memory for in-process runs; the fleet's on workers). */
  secret(): Uint8Array;
  gate: RateGate;
  /** The model an agent's calls go to (undefined: the proxy refuses them). */
  upstream(agent: string): Upstream | undefined;
  /**
   * The run allows the network (`--allow-network`): the proxy forwards server-side tools (web search,
   * MCP connectors, …); otherwise it refuses them.
   */
  allowNetwork?: boolean;
  /** The folder holding the agents' own config folders (under the run folder). */
  homesDir: string;
  /** Default: this process's server. */
  server?: AgentCliServer;
}

export interface CliHostRun {
  runId: string;
  deadlineAt?: string;
  log: EventLog;
  budget: Budget;
  scrubber: Scrubber;
}

export interface DrivePeer {
  cli: AgentCliChoice;
  agent: string;
  goal: string;
  system: string;
  worktree: string;
  /** Colony's tools for the agent (coordination, merge, review): served over MCP. */
  tools: readonly Tool[];
  sandbox: Sandbox | null;
  baseEnv: NodeJS.ProcessEnv;
  history: readonly StoredEvent[];
  signal: AbortSignal;
  messages?: () => Promise<Message[]>;
  /** What a logged session is told when resumed (a subagent's next task; default: a crash note). */
  resumeText?: string;
}

export class CliHost {
  private readonly tools = new Map<string, readonly Tool[]>();
  private unregister: (() => void) | null = null;
  private readonly server: AgentCliServer;

  constructor(
    private readonly access: AgentCliAccess,
    private readonly run: CliHostRun,
  ) {
    this.server = access.server ?? agentCliServer();
  }

  async drive(peer: DrivePeer): Promise<AgentOutcome> {
    const { access, run } = this;
    const { messages, ...rest } = peer;
    const stdin = takesStdinMessages(peer.cli.kind);
    this.tools.set(peer.agent, messages && !stdin ? withDirectMessages(peer.tools, messages) : peer.tools);
    this.unregister ??= this.server.register({
      proxy: {
        runId: run.runId,
        get secret() {
          return access.secret();
        },
        log: run.log,
        budget: run.budget,
        gate: access.gate,
        upstream: (agent) => access.upstream(agent),
        scrubber: run.scrubber,
        allowNetwork: access.allowNetwork === true,
        // As over MCP: an agent's token is good only while its CLI runs here.
        hosted: (agent) => this.tools.has(agent),
      },
      toolsOf: (agent) => this.tools.get(agent),
    });
    try {
      return await driveCli({
        ...rest,
        // Only a CLI taking stdin input reads them there; the others with their tool results.
        ...(stdin && messages ? { messages } : {}),
        runId: run.runId,
        agentHome: join(access.homesDir, peer.agent),
        server: this.server,
        token: issueCliToken(access.secret(), {
          runId: run.runId,
          agent: peer.agent,
          deadlineAt: run.deadlineAt,
        }),
        colonyTools: peer.tools.map((t) => t.spec.name),
        model: access.upstream(peer.agent)?.model.name,
        log: run.log,
      });
    } finally {
      this.tools.delete(peer.agent);
      if (this.tools.size === 0) {
        this.unregister?.();
        this.unregister = null;
      }
    }
  }
}
