/** Workflow programs: stages and steps with their place in the log (critical-path.ts reads them). */
import type { Handlers } from '../run-state.js';

export const workflowHandlers: Handlers = {
  'stage.started': ({ state, event }) => {
    const d = event.data;
    // A stage started again starts over.
    state.workflow.stages.set(d.stage, {
      id: d.stage,
      parent: d.parent,
      startSeq: event.seq,
      endSeq: null,
      agents: [],
    });
  },
  'stage.finished': ({ state, event }) => {
    const node = state.workflow.stages.get(event.data.stage);
    if (node) node.endSeq = event.seq;
  },
  'step.started': ({ state, event }) => {
    const d = event.data;
    // A step keeps its first start.
    if (state.workflow.steps.has(d.step)) return;
    state.workflow.steps.set(d.step, {
      id: d.step,
      parent: d.stage,
      startSeq: event.seq,
      endSeq: null,
      agents: [],
    });
  },
  'step.attempt': ({ state, event }) => {
    state.workflow.steps.get(event.data.step)?.agents.push(...event.data.agents);
  },
  'workflow.planned': ({ state, event }) => {
    const d = event.data;
    state.workflow.plans.set(d.dag, {
      dag: d.dag,
      stage: d.stage,
      nodes: d.nodes.map((n) => n.stage),
      criticalPath: d.criticalPath,
      criticalSteps: d.criticalSteps,
    });
  },
  'step.finished': ({ state, event }) => {
    const node = state.workflow.steps.get(event.data.step);
    if (node) node.endSeq = event.seq;
  },
};
