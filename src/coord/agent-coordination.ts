/**
 * Coordination as a capability of any agent, whatever its topology: the coordination tools its profile
 * grants (shared context, claims, the task board, messages) and the leases of the agents working in
 * this process. Peers hold their claims until they finish (PeerHost); an orchestrated subagent holds
 * them for one task and a workflow agent for its attempt: `hold` renews them while the agent works and
 * releases them when it ends — after its merge was decided, so a scope stays claimed until the work in
 * it has landed or was rejected.
 */
import type { CoordinationCapability } from '../agent/profiles.js';
import type { Tool } from '../tool/types.js';
import type { Heartbeat } from './claims.js';
import type { Coordination } from './coordination.js';
import { createCoordinationTools, holdsClaims } from './tools/index.js';

export class AgentCoordination {
  /** Agents of this run working in this process, with how many holds each has open. */
  private readonly live = new Map<string, number>();
  private heartbeat: Heartbeat | null = null;

  constructor(
    readonly coord: Coordination,
    readonly runId: string,
  ) {}

  /** `agent`'s coordination tools for these capabilities (none for `[]`). */
  tools(agent: string, capabilities: readonly CoordinationCapability[]): Tool[] {
    return capabilities.length === 0
      ? []
      : createCoordinationTools(this.coord, this.runId, agent, capabilities);
  }

  /**
   * Runs `work` as a stretch of `agent`'s work: its claims are renewed meanwhile (one heartbeat per
   * run and process, beating while any agent holds) and released when `work` ends, with `outcome` as their
   * outcome. An agent that cannot claim (`capabilities` without claims or tasks) holds nothing, so
   * nothing is released. `keep()` true at the end: the claims stay (the session was taken over by
   * another process, which renews them from now on).
   */
  async hold<T>(
    agent: string,
    capabilities: readonly CoordinationCapability[],
    work: () => Promise<T>,
    options: { outcome: string; keep?: () => boolean },
  ): Promise<T> {
    if (!holdsClaims(capabilities)) return work();
    this.live.set(agent, (this.live.get(agent) ?? 0) + 1);
    this.heartbeat ??= this.coord.claims.startHeartbeat(() =>
      [...this.live.keys()].map((name) => ({ runId: this.runId, agent: name })),
    );
    try {
      return await work();
    } finally {
      const left = (this.live.get(agent) ?? 1) - 1;
      if (left > 0) this.live.set(agent, left);
      else this.live.delete(agent);
      // Nobody left to renew: no timer keeps beating for an idle run.
      if (this.live.size === 0) this.stop();
      // A claim left open would block its scope for everyone until its lease lapsed (the run's, 5 minutes by default).
      if (left === 0 && !options.keep?.())
        await this.coord.claims.releaseAll(this.runId, agent, options.outcome);
    }
  }

  /** The agents whose claims this process renews now. */
  working(): string[] {
    return [...this.live.keys()];
  }

  stop(): void {
    this.heartbeat?.stop();
    this.heartbeat = null;
  }
}
