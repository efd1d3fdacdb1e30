/**
 * The run's own events: start, finish, resume, the fetched result, workspaces, commits, limits, the
 * run's verify and acceptance check.
 */
import type { Handlers } from '../run-state.js';
import { MAX_OUTPUT } from './helpers.js';

export const runHandlers: Handlers = {
  'run.started': ({ state, event }) => {
    const d = event.data;
    state.topology = d.topology;
    state.goal = d.goal;
    state.model = d.model;
    state.config = d.config;
    const planned = typeof d.config.agents === 'number' ? d.config.agents : 0;
    if (d.topology === 'peers')
      state.plannedAgents = Array.from({ length: planned }, (_, i) => `peer-${i + 1}`);
  },
  'run.finished': ({ state, event }) => {
    const d = event.data;
    state.status = d.status;
    state.reason = d.reason;
    state.resultBranch = d.resultBranch;
  },
  // Logged just before run.finished: a run that died in between still names its result branch.
  'result.fetched': ({ state, event }) => {
    state.resultBranch = event.data.branch;
  },
  'run.resumed': ({ state }) => {
    state.status = 'running';
    state.reason = null;
  },
  'workspace.ready': ({ event, agent }) => {
    if (agent) agent.branch = event.data.branch;
  },
  'commit.created': ({ event, at, agent }) => {
    if (!agent) return;
    const d = event.data;
    agent.branch = d.branch;
    agent.commits.push({
      commit: d.commit,
      branch: d.branch,
      files: d.files,
      tMs: at,
      mr: null,
      landedAs: null,
    });
  },
  'limit.hit': ({ state, event, at, name }) => {
    const d = event.data;
    state.limits.push({ tMs: at, agent: name, limit: d.limit, value: d.value, used: d.used });
  },
  'verify.finished': ({ state, event, name }) => {
    // The run's verify; an agent's own verify (agent set) is one of its steps, not the result (the
    // summary falls back to the first of those when the run has no verify of its own).
    const d = event.data;
    if (name) {
      state.agentVerify ??= { command: d.command, passed: d.passed, exitCode: d.exitCode };
      return;
    }
    state.verify = {
      command: d.command,
      passed: d.passed,
      exitCode: d.exitCode,
      output: d.output.slice(0, MAX_OUTPUT),
    };
  },
  'acceptance.finished': ({ state, event }) => {
    const { round, passed } = event.data;
    state.acceptance = { round, passed };
  },
};
