/**
 * The critical path of a run, from its events.
 *
 * - Orchestrated (task.assigned events): Σ over the lead's turns of the turn itself (1 step) plus the
 *   longest subagent task that turn assigned (its steps from task.finished, or the subagent's model
 *   calls so far while it runs). This is issue 5's CriticalSteps definition.
 * - Solo and peers: the log records no dependencies between peers' steps, so the path is
 *   approximated by the agent with the most steps (ties: the longer span) from its first to its
 *   last bar. For solo that is exact.
 */
import type { TaskRecord } from './run-state.js';
import type { AgentView, CriticalPath, CriticalSegment, TimelineLane } from './types.js';

export function criticalPath(
  agents: readonly AgentView[],
  lanes: readonly TimelineLane[],
  tasks: readonly TaskRecord[],
  nowMs: number,
): CriticalPath {
  if (tasks.length > 0) return leadTurns(lanes, tasks, nowMs);
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
  // A map, not lanes.find per agent: 1,000 agents would make that a million comparisons.
  const laneOf = new Map(lanes.map((l) => [l.agent, l]));
  let best: { agent: AgentView; startMs: number; endMs: number } | null = null;
  for (const agent of agents) {
    const s = span(laneOf.get(agent.name));
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
  tasks: readonly TaskRecord[],
  nowMs: number,
): CriticalPath {
  const lead = tasks[0]?.lead ?? '';
  const leadLane = lanes.find((l) => l.agent === lead);
  const segments: CriticalSegment[] = [];
  let steps = 0;
  for (const turn of leadLane?.bars.filter((b) => b.kind === 'model' && !b.error) ?? []) {
    steps += 1;
    segments.push({
      agent: lead,
      startMs: turn.startMs,
      endMs: turn.endMs,
      label: `${lead} step ${turn.step}: ${turn.label}`,
      steps: 1,
    });
    let longest: CriticalSegment | null = null;
    for (const task of tasks) {
      if (task.lead !== lead || task.leadStep !== turn.step) continue;
      const startMs = task.startMs ?? task.assignedMs;
      const endMs = task.endMs ?? nowMs;
      const taskSteps =
        task.steps ??
        lanes
          .find((l) => l.agent === task.agent)
          ?.bars.filter((b) => b.kind === 'model' && !b.open && b.endMs >= startMs && b.endMs <= endMs)
          .length ??
        0;
      if (!longest || taskSteps > longest.steps)
        longest = {
          agent: task.agent,
          startMs,
          endMs,
          label: `${task.agent}: ${task.task}, ${taskSteps} steps`,
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
    description: `the lead's (${lead}) turns plus the longest subagent task each turn assigned`,
    segments,
    steps,
    durationMs: first && last ? last.endMs - first.startMs : 0,
  };
}
