/**
 * The critical path of a run: the model steps that had to run one after another. One definition,
 * computed from the one fold (run-state.ts), by the shape of the run:
 *
 * - Orchestrated (the lead assigned tasks): Σ over the lead's turns of the turn itself (1 step) plus
 *   the longest subagent task that turn assigned. This is issue 5's CriticalSteps definition. A
 *   program the turn ran (`run_workflow`, ids `wf<lead step>-<call id>/…`) adds its own stage path
 *   (as a workflow run's, below); programs of one turn run one after another, so they add up.
 * - Workflow programs (stage and step events, src/workflow; REFERENCE §1): a stage costs 1 + the
 *   longest chain of its children, a step the model steps of its attempts' agents (attempts and
 *   repairs run one after another). Children that overlap in the log (one started before the other
 *   finished) ran in parallel; a chain is a sequence of children each starting after the previous
 *   finished, so sequential stages add up and parallel ones (w.map items, independent DAG nodes)
 *   count once, by their slowest.
 * - Otherwise (solo, peers) every agent works in one parallel stage, and the log records no
 *   dependencies between peers' steps: the path is the agent with the most steps (exact for solo).
 *
 * Two projections of it:
 * - `criticalPath`, the view's (report, dashboard): segments to draw on the timeline. Live, it counts a
 *   running task's steps so far and the lead's model call in flight; a workflow run is drawn as its
 *   longest agent (stages are not timeline segments).
 * - `criticalSteps`, the summary's and metrics' number: settled figures only (a task counts the steps
 *   its task.finished reported, 0 before), and a workflow run takes its stage path (`workflowPath`).
 * Once every task has finished, both give the same steps for solo, peers and orchestrated runs.
 */
import type { StoredEvent } from '../core/events.js';
import { roleOf } from './fold/helpers.js';
import { foldEvents, type RunState, type TaskRecord, type WorkflowNode } from './run-state.js';
import type { AgentView, CriticalPath, CriticalSegment, TimelineBar, TimelineLane } from './types.js';

/** One lead turn in the summary's terms. */
export interface LeadTurn {
  step: number;
  tasks: Array<{ task: string; agent: string; steps: number | null }>;
  /** Programs this turn ran (run_workflow), each with its stage path in steps. */
  programs: Array<{ program: string; criticalSteps: number }>;
  /** 1 + the largest task step count of this turn + its programs' paths. */
  criticalSteps: number;
}

export interface WorkflowCriticalPath {
  criticalSteps: number;
  totalSteps: number;
  parallelism: number;
  /** Top-level stages with their own critical steps. */
  stages: Array<{ stage: string; criticalSteps: number }>;
}

/** The lead's turns (its model calls that answered) with the tasks each one assigned. */
function turnsOf(
  lead: string,
  bars: readonly TimelineBar[],
  tasks: readonly TaskRecord[],
): Array<{ bar: TimelineBar; tasks: TaskRecord[] }> {
  const byStep = new Map<number, TaskRecord[]>();
  for (const task of tasks) {
    if (task.lead !== lead) continue;
    const list = byStep.get(task.leadStep) ?? [];
    byStep.set(task.leadStep, list);
    list.push(task);
  }
  return bars
    .filter((b) => b.kind === 'model' && !b.error)
    .map((bar) => ({ bar, tasks: byStep.get(bar.step) ?? [] }));
}

/** The lead: the agent that assigned the first task, else one started as `lead` that answered. */
export function leadOf(state: RunState): string | null {
  const first = state.tasks.values().next();
  if (!first.done) return first.value.lead;
  for (const agent of state.agents.values())
    if (roleOf(agent) === 'lead' && agent.steps > 0) return agent.name;
  return null;
}

/** The summary's CriticalSteps, with the lead's turns for an orchestrated run. */
export function criticalSteps(state: RunState): { steps: number; leadTurns: LeadTurn[] } {
  const lead = leadOf(state);
  if (lead !== null) {
    const programs = leadPrograms(state);
    const leadTurns = turnsOf(lead, state.bars.get(lead) ?? [], [...state.tasks.values()]).map(
      ({ bar, tasks }): LeadTurn => {
        const list = tasks.map((t) => ({ task: t.task, agent: t.agent, steps: t.steps }));
        const ran = programs.get(bar.step) ?? [];
        return {
          step: bar.step,
          tasks: list,
          programs: ran,
          criticalSteps:
            1 +
            Math.max(0, ...list.map((t) => t.steps ?? 0)) +
            ran.reduce((sum, p) => sum + p.criticalSteps, 0),
        };
      },
    );
    return { steps: leadTurns.reduce((sum, turn) => sum + turn.criticalSteps, 0), leadTurns };
  }
  if (state.workflow.stages.size > 0 || state.workflow.steps.size > 0)
    return { steps: workflowPath(state).criticalSteps, leadTurns: [] };
  let longest = 0;
  for (const agent of state.agents.values()) longest = Math.max(longest, agent.steps);
  return { steps: longest, leadTurns: [] };
}

/** The view's critical path: `agents` and `lanes` as toRunView shows them, `nowMs` ends running tasks. */
export function criticalPath(
  agents: readonly AgentView[],
  lanes: readonly TimelineLane[],
  tasks: readonly TaskRecord[],
  nowMs: number,
): CriticalPath {
  if (tasks.length > 0) return leadTurnsPath(lanes, tasks, nowMs);
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
    // One agent's steps are its own critical path; between peers the log records no dependencies.
    description:
      lanes.length <= 1
        ? `the agent's own steps (${best.agent.name}): with one agent every step is on the critical path`
        : `the agent with the most steps (${best.agent.name}); peers' dependencies are not recorded, so this approximates the critical path`,
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

function leadTurnsPath(
  lanes: readonly TimelineLane[],
  tasks: readonly TaskRecord[],
  nowMs: number,
): CriticalPath {
  const lead = tasks[0]?.lead ?? '';
  const laneOf = new Map(lanes.map((l) => [l.agent, l]));
  const segments: CriticalSegment[] = [];
  let steps = 0;
  for (const { bar: turn, tasks: assigned } of turnsOf(lead, laneOf.get(lead)?.bars ?? [], tasks)) {
    steps += 1;
    segments.push({
      agent: lead,
      startMs: turn.startMs,
      endMs: turn.endMs,
      label: `${lead} step ${turn.step}: ${turn.label}`,
      steps: 1,
    });
    let longest: CriticalSegment | null = null;
    for (const task of assigned) {
      const startMs = task.startMs ?? task.assignedMs;
      const endMs = task.endMs ?? nowMs;
      // A running task: the subagent's answered model calls since it started.
      const taskSteps =
        task.steps ??
        laneOf
          .get(task.agent)
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

interface Node {
  id: string;
  start: number;
  end: number;
  /** Leaf cost (steps); stages compute theirs from children. */
  steps: number;
  stage: boolean;
  children: Node[];
}

/**
 * The plan's CriticalSteps, before the run: the `w.dag` plans the program logged (workflow.planned).
 * Plans add up (DAGs one after another), except a plan inside a node of another plan, which that
 * node's weight stands for. Null when the program planned no DAG.
 */
export function plannedPath(state: RunState): { criticalSteps: number; criticalPath: string[] } | null {
  const plans = [...state.workflow.plans.values()];
  if (plans.length === 0) return null;
  const nodes = plans.flatMap((p) => p.nodes);
  const nested = (stage: string | null) =>
    stage !== null && nodes.some((node) => stage === node || stage.startsWith(`${node}/`));
  const outer = plans.filter((p) => !nested(p.stage));
  return {
    criticalSteps: outer.reduce((sum, p) => sum + p.criticalSteps, 0),
    criticalPath: outer.flatMap((p) => p.criticalPath),
  };
}

/**
 * Measured steps of every workflow stage (stage id → 1 + its children's longest chain, as in
 * CriticalSteps): the recorded weights of DAG nodes for the next run of the same program.
 */
export function workflowStageSteps(events: readonly StoredEvent[]): Map<string, number> {
  return stageTree(foldEvents(events)).costs;
}

/** A workflow run's stage path from its events (folded here; `workflowPath` projects a state). */
export function workflowCriticalPath(events: readonly StoredEvent[]): WorkflowCriticalPath {
  return workflowPath(foldEvents(events));
}

/** The lead's programs (run_workflow) by the lead step that ran them, each with its stage path. */
function leadPrograms(state: RunState): Map<number, Array<{ program: string; criticalSteps: number }>> {
  const ids = new Set<string>();
  for (const nodes of [state.workflow.stages, state.workflow.steps])
    for (const id of nodes.keys()) {
      const program = /^wf\d+-[^/]+/.exec(id)?.[0];
      if (program) ids.add(program);
    }
  const byStep = new Map<number, Array<{ program: string; criticalSteps: number }>>();
  for (const program of ids) {
    const step = Number.parseInt(program.slice(2), 10);
    const list = byStep.get(step) ?? [];
    byStep.set(step, list);
    const within = (id: string) => id.startsWith(`${program}/`);
    list.push({ program, criticalSteps: workflowPath(state, within).criticalSteps });
  }
  return byStep;
}

/**
 * A workflow program's stage path (its stages and steps, with their agents' steps); `within` keeps
 * only the nodes of one program (by id).
 */
export function workflowPath(
  state: RunState,
  within: (id: string) => boolean = () => true,
): WorkflowCriticalPath {
  let totalSteps = 0;
  for (const agent of state.agents.values()) totalSteps += agent.steps;
  const { root, cost, longestChain } = stageTree(state, within);
  const steps = longestChain(root.children);
  return {
    criticalSteps: steps,
    totalSteps,
    parallelism: steps > 0 ? Math.round((totalSteps / steps) * 100) / 100 : 0,
    stages: root.children.filter((n) => n.stage).map((n) => ({ stage: n.id, criticalSteps: cost(n) })),
  };
}

/**
 * The stages and steps as a tree, with the cost of a node and of a chain of siblings; `within` keeps
 * only the nodes of one program (by id).
 */
function stageTree(
  state: RunState,
  within: (id: string) => boolean = () => true,
): {
  root: Node;
  cost: (n: Node) => number;
  longestChain: (children: Node[]) => number;
  costs: Map<string, number>;
} {
  const node = (n: WorkflowNode, stage: boolean): Node => ({
    id: n.id,
    start: n.startSeq,
    end: n.endSeq ?? state.lastSeq,
    steps: n.agents.reduce((sum, agent) => sum + (state.agents.get(agent)?.steps ?? 0), 0),
    stage,
    children: [],
  });
  const stages = new Map<string, Node>();
  const placed: Array<[Node, string | null]> = [];
  for (const n of state.workflow.stages.values()) {
    if (!within(n.id)) continue;
    const stage = node(n, true);
    stages.set(n.id, stage);
    placed.push([stage, n.parent]);
  }
  for (const n of state.workflow.steps.values()) if (within(n.id)) placed.push([node(n, false), n.parent]);
  const root: Node = { id: '', start: 0, end: state.lastSeq, steps: 0, stage: true, children: [] };
  for (const [child, parent] of placed) (parent ? (stages.get(parent) ?? root) : root).children.push(child);

  const cost = (n: Node): number => (n.stage ? 1 + longestChain(n.children) : n.steps);
  const longestChain = (children: Node[]): number => {
    const sorted = [...children].sort((a, b) => a.start - b.start);
    const best: number[] = [];
    let overall = 0;
    sorted.forEach((n, i) => {
      let before = 0;
      for (let j = 0; j < i; j++) {
        const previous = sorted[j] as Node;
        if (previous.end < n.start) before = Math.max(before, best[j] ?? 0);
      }
      best[i] = before + cost(n);
      overall = Math.max(overall, best[i] ?? 0);
    });
    return overall;
  };
  const costs = new Map([...stages.values()].map((n) => [n.id, cost(n)]));
  return { root, cost, longestChain, costs };
}
