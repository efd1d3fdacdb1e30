/**
 * The critical path of a run, from its events.
 *
 * - Orchestrated (a lead calling `assign_task`): Σ over the lead's turns of the turn itself plus the
 *   longest subagent task that turn started — the task's steps are the subagent's model calls between
 *   the assign_task call's start and finish. Matches issue 5's CriticalSteps definition.
 * - Solo and peers: the log records no dependencies between peers' steps, so the path is
 *   approximated by the agent with the most steps (ties: the longer span) from its first to its
 *   last bar. For solo that is exact.
 */
import type { AssignCall } from './run-state.js';
import type { AgentView, CriticalPath, CriticalSegment, TimelineLane } from './types.js';

export function criticalPath(
  agents: readonly AgentView[],
  lanes: readonly TimelineLane[],
  assigns: readonly AssignCall[],
  nowMs: number,
): CriticalPath {
  if (assigns.length > 0) return leadTurns(lanes, assigns, nowMs);
  return longestAgent(agents, lanes);
}

function span(lane: TimelineLane | undefined): { startMs: number; endMs: number } | null {
  if (!lane || lane.bars.length === 0) return null;
  let startMs = Number.POSITIVE_INFINITY;
  let endMs = Number.NEGATIVE_INFINITY;
  for (const bar of lane.bars) {
    startMs = Math.min(startMs, bar.startMs);
    endMs = Math.max(endMs, bar.endMs);
  }
  return { startMs, endMs };
}

function longestAgent(agents: readonly AgentView[], lanes: readonly TimelineLane[]): CriticalPath {
  let best: { agent: AgentView; startMs: number; endMs: number } | null = null;
  for (const agent of agents) {
    const s = span(lanes.find((l) => l.agent === agent.name));
    if (!s) continue;
    const longer =
      !best ||
      agent.steps > best.agent.steps ||
      (agent.steps === best.agent.steps && s.endMs - s.startMs > best.endMs - best.startMs);
    if (longer) best = { agent, ...s };
  }
  if (!best) return { method: 'none', description: 'no steps yet', segments: [], steps: 0, durationMs: 0 };
  return {
    method: 'longest-agent',
    description: `the agent with the most steps (${best.agent.name}); peers' dependencies are not recorded, so this approximates the critical path`,
    segments: [
      {
        agent: best.agent.name,
        startMs: best.startMs,
        endMs: best.endMs,
        label: `${best.agent.name}: ${best.agent.steps} steps`,
        steps: best.agent.steps,
      },
    ],
    steps: best.agent.steps,
    durationMs: best.endMs - best.startMs,
  };
}

function leadTurns(
  lanes: readonly TimelineLane[],
  assigns: readonly AssignCall[],
  nowMs: number,
): CriticalPath {
  const lead = assigns[0]?.lead ?? '';
  const leadLane = lanes.find((l) => l.agent === lead);
  const segments: CriticalSegment[] = [];
  let steps = 0;
  for (const turn of leadLane?.bars.filter((b) => b.kind === 'model' && !b.error) ?? []) {
    steps += 1;
    segments.push({ agent: lead, startMs: turn.startMs, endMs: turn.endMs, label: turn.label, steps: 1 });
    let longest: CriticalSegment | null = null;
    for (const assign of assigns) {
      if (assign.lead !== lead || assign.turnStep !== turn.step || !assign.target) continue;
      const endMs = assign.endMs ?? nowMs;
      const taskSteps =
        lanes
          .find((l) => l.agent === assign.target)
          ?.bars.filter((b) => b.kind === 'model' && b.endMs >= assign.startMs && b.endMs <= endMs).length ??
        0;
      if (!longest || taskSteps > longest.steps)
        longest = {
          agent: assign.target,
          startMs: assign.startMs,
          endMs,
          label: `${assign.target}: task of ${taskSteps} steps`,
          steps: taskSteps,
        };
    }
    if (longest) {
      steps += longest.steps;
      segments.push(longest);
    }
  }
  const first = segments[0];
  const last = segments[segments.length - 1];
  return {
    method: 'lead-turns',
    description: `the lead's (${lead}) turns plus the longest subagent task each turn started`,
    segments,
    steps,
    durationMs: first && last ? last.endMs - first.startMs : 0,
  };
}
