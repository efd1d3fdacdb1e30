/** Orchestrated runs: subagents and the tasks a lead assigns. */
import type { Handlers } from '../run-state.js';
import { act, agentOf, setState } from './helpers.js';

export const tasksHandlers: Handlers = {
  'subagent.created': ({ state, event, at }) => {
    const d = event.data;
    const sub = agentOf(state, d.name, at);
    sub.profile = d.profile;
    sub.model = d.model;
    sub.maxSteps = d.maxSteps;
    // Created by the lead, waiting for a task.
    setState(sub, 'idle', at);
    if (!state.plannedAgents.includes(d.name)) state.plannedAgents.push(d.name);
  },
  'task.assigned': ({ state, event, at, name }) => {
    if (!name) return;
    const d = event.data;
    state.tasks.set(d.task, {
      task: d.task,
      lead: name,
      agent: d.agent,
      leadStep: d.leadStep,
      assignedMs: at,
      startMs: null,
      endMs: null,
      steps: null,
      status: null,
    });
  },
  'task.started': ({ state, event, at, agent }) => {
    const task = state.tasks.get(event.data.task);
    if (task) task.startMs = at;
    if (agent) {
      setState(agent, 'thinking', at);
      act(agent, `task ${event.data.task}`, at);
    }
  },
  'task.finished': ({ state, event, at }) => {
    const d = event.data;
    const task = state.tasks.get(d.task);
    if (task) {
      task.endMs = at;
      task.steps = d.steps;
      task.status = d.status;
    }
    // Between tasks a subagent waits for the lead's next assignment.
    const sub = state.agents.get(d.agent);
    if (sub) setState(sub, 'idle', at);
  },
};
