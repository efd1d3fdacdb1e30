/**
 * One record per lead decision (a `model.response` of the lead): what it was sent and answered, the
 * calls it made with their results, the subagents it created, and what ran as a result — the tasks
 * it assigned (run together) and the programs it ran, with each one's steps and outcome.
 */
import type { StoredEvent } from '../../core/events.js';
import type { LeadTurn } from '../../view/critical-path.js';
import type { RunState } from '../../view/run-state.js';
import { segment } from '../../workflow/call-path.js';
import { leadRequests } from './lead-requests.js';
import {
  type DecisionCall,
  type DecisionProgram,
  type DecisionProgramStep,
  type DecisionRecord,
  type DecisionTask,
  TRAJECTORY_VERSION,
} from './types.js';

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function ofKind<K extends StoredEvent['kind']>(events: readonly StoredEvent[], kind: K): StoredEvent<K>[] {
  return events.filter((e): e is StoredEvent<K> => e.kind === kind);
}

/** The program id `run_workflow` gives a call (topology/orchestrated/run-workflow-tool.ts). */
export function programId(leadStep: number, callId: string): string {
  return `wf${leadStep}-${segment(callId)}`;
}

function programSteps(
  program: string,
  events: readonly StoredEvent[],
  state: RunState,
): DecisionProgramStep[] {
  const inProgram = (id: string) => id === program || id.startsWith(`${program}/`);
  const finished = new Map(
    ofKind(events, 'step.finished')
      .filter((e) => inProgram(e.data.step))
      .map((e) => [e.data.step, e.data]),
  );
  const agents = new Map<string, string[]>();
  for (const e of ofKind(events, 'step.attempt'))
    if (inProgram(e.data.step))
      agents.set(e.data.step, [...(agents.get(e.data.step) ?? []), ...e.data.agents]);
  return ofKind(events, 'step.started')
    .filter((e) => inProgram(e.data.step))
    .map((e): DecisionProgramStep => {
      const end = finished.get(e.data.step);
      const names = [...new Set(agents.get(e.data.step) ?? [])];
      return {
        step: e.data.step,
        label: e.data.label,
        profile: e.data.profile,
        agents: names,
        steps: names.reduce((sum, name) => sum + (state.agents.get(name)?.steps ?? 0), 0),
        ok: end ? end.ok : null,
        attempts: end ? end.attempts : null,
      };
    });
}

/**
 * The lead's decisions. `turns`: the lead's turns as the summary's CriticalSteps counted them
 * (view/critical-path.ts), so a decision's `criticalSteps` is that computation's, not a second one.
 */
export function leadDecisions(
  runId: string,
  lead: string,
  events: readonly StoredEvent[],
  state: RunState,
  turns: readonly LeadTurn[],
): DecisionRecord[] {
  const requests = leadRequests(lead, events);
  const leadEvents = events.filter((e) => e.agent === lead);
  const turnOf = new Map(turns.map((t) => [t.step, t]));
  const tasksByStep = new Map<number, StoredEvent<'task.assigned'>[]>();
  for (const e of ofKind(leadEvents, 'task.assigned'))
    tasksByStep.set(e.data.leadStep, [...(tasksByStep.get(e.data.leadStep) ?? []), e]);
  const taskEnds = new Map(ofKind(events, 'task.finished').map((e) => [e.data.task, e.data]));
  const workflowEnds = new Map(
    ofKind(events, 'workflow.finished')
      .filter((e) => e.data.program !== undefined)
      .map((e) => [e.data.program as string, e.data]),
  );

  const responses = ofKind(leadEvents, 'model.response');
  return responses.map((response, index): DecisionRecord => {
    const { step, turn, latencyMs } = response.data;
    const next = responses[index + 1]?.seq ?? Number.POSITIVE_INFINITY;
    const during = leadEvents.filter((e) => e.seq > response.seq && e.seq < next);
    const results = new Map(ofKind(during, 'tool.finished').map((e) => [e.data.callId, e.data]));
    const calls = turn.toolCalls.map((call): DecisionCall => {
      const result = results.get(call.id);
      return {
        callId: call.id,
        name: call.name,
        arguments: parsed(call.arguments),
        result: result ? { isError: result.isError, content: result.content } : null,
      };
    });
    // In the order of the response's calls (the log has them in the order they were started).
    const callOrder = new Map(turn.toolCalls.map((call, i) => [call.id, i]));
    const assigned = [...(tasksByStep.get(step) ?? [])].sort(
      (a, b) => (callOrder.get(a.data.callId) ?? 0) - (callOrder.get(b.data.callId) ?? 0),
    );
    const tasks = assigned.map((e): DecisionTask => {
      const end = taskEnds.get(e.data.task);
      return {
        task: e.data.task,
        agent: e.data.agent,
        prompt: e.data.prompt,
        callId: e.data.callId,
        status: end?.status ?? null,
        steps: end?.steps ?? null,
        result: end?.result ?? null,
      };
    });
    const programs = turn.toolCalls
      .filter((call) => call.name === 'run_workflow')
      .map((call): DecisionProgram => {
        const program = programId(step, call.id);
        return {
          program,
          callId: call.id,
          ok: workflowEnds.get(program)?.ok ?? null,
          steps: programSteps(program, events, state),
        };
      });
    const taskSteps = tasks.reduce((sum, t) => sum + (t.steps ?? 0), 0);
    const workflowSteps = programs.reduce((sum, p) => sum + p.steps.reduce((s, x) => s + x.steps, 0), 0);
    return {
      v: TRAJECTORY_VERSION,
      type: 'decision',
      runId,
      index,
      lead,
      leadStep: step,
      seq: response.seq,
      ts: response.ts,
      request: requests.get(step) ?? { system: '', tools: [], messages: [] },
      response: turn,
      latencyMs,
      calls,
      created: ofKind(during, 'subagent.created').map((e) => ({
        name: e.data.name,
        profile: e.data.profile,
        model: e.data.model,
        maxSteps: e.data.maxSteps,
      })),
      parallel: { tasks, programs, agents: new Set(tasks.map((t) => t.agent)).size },
      criticalSteps: turnOf.get(step)?.criticalSteps ?? 1,
      steps: 1 + taskSteps + workflowSteps,
    };
  });
}
