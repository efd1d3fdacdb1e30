/**
 * The tasks of an orchestrated run's subagents as a fleet worker runs them: one session per task
 * (`<run>/<agent>/<task>`). The lead stays with the run's owner; here the subagent and its task are
 * read from the log (`subagent.created`, `task.assigned`, committed before the owner enqueued the
 * session), its tools are built on this worker's repositories, and its loop is the same
 * `runSubagentTask` the owner runs in-process — Colony's own loop, or an external CLI that this
 * worker starts and serves (MCP and the model proxy) when the subagent's profile or the run names one.
 */
import { profileWrites } from '../agent/profiles.js';
import { isKind, type StoredEvent } from '../core/events.js';
import type { AgentEnd } from '../run/agent-end.js';
import type { RunSpec } from '../run/run-spec.js';
import type { EventLog } from '../store/types.js';
import {
  buildSubagentTools,
  failedTask,
  runSubagentTask,
  type SubagentTaskDeps,
  type SubagentToolDeps,
  subagentFrom,
} from '../topology/orchestrated/subagent-task.js';

export interface SubagentHost {
  /** A subagent's model as the lead defined it (undefined before its `subagent.created` was read). */
  modelOf(agent: string): string | undefined;
  /** `fresh`: the subagent never ran (its first task's first request goes without reading history). */
  runTask(agent: string, task: string, signal: AbortSignal, options: { fresh: boolean }): Promise<AgentEnd>;
}

export function subagentHost(options: {
  spec: RunSpec;
  log: EventLog;
  task: SubagentTaskDeps;
  tools: SubagentToolDeps;
}): SubagentHost {
  const { spec, log } = options;
  // Read-only subagents of one profile share one set of tools on the lead's checkout (as in-process).
  const toolCache = new Map<string, ReturnType<typeof buildSubagentTools>>();
  const lead = leadIndex(spec.runId, log);

  return {
    modelOf: (agent) => lead.model(agent),
    async runTask(agent, task, signal, { fresh }) {
      const { definition, record } = await lead.find(agent, task);
      if (!definition)
        return { agent, started: false, error: `${agent} is not a subagent of run ${spec.runId}` };
      if (!record || record.data.agent !== agent)
        return { agent, started: false, error: `${task} is not a task of ${agent} in run ${spec.runId}` };
      const subagent = subagentFrom(definition.data, spec.profiles ?? {});
      if (!subagent.ok) return { agent, started: false, error: subagent.error };
      // A CLI-driven subagent works in a checkout of its own (its CLI's tools write), as in-process.
      const cli = (options.task.cli?.choiceFor(subagent.value) ?? null) !== null;
      const key =
        profileWrites(subagent.value.profile.base) || cli
          ? `agent:${agent}`
          : `read-only:${subagent.value.profile.base}`;
      let tools = toolCache.get(key);
      if (!tools) {
        tools = buildSubagentTools(options.tools, subagent.value, { cli });
        toolCache.set(key, tools);
        // A failure, or a throw (the database went away), is not kept: the next task builds again.
        const built = tools;
        const forget = () => {
          if (toolCache.get(key) === built) toolCache.delete(key);
        };
        void built.then((result) => {
          if (!result.ok) forget();
        }, forget);
      }
      const built = await tools;
      if (!built.ok) return { agent, started: true, ...failedTask(built.error) };
      const ran = await runSubagentTask(
        options.task,
        subagent.value,
        { task, prompt: record.data.prompt },
        built.tools,
        { knownFresh: fresh, signal, worktree: built.worktree },
      );
      return { agent, started: true, ...ran };
    },
  };
}

/**
 * The lead's subagents and tasks as the log has them, read incrementally (only events after the last
 * one seen, one read at a time): a wide fan-out's tasks would otherwise each read every
 * `subagent.created` and `task.assigned` of the run (4,000 tasks × 8,000 events).
 */
function leadIndex(runId: string, log: EventLog) {
  const subagents = new Map<string, StoredEvent<'subagent.created'>>();
  const tasks = new Map<string, StoredEvent<'task.assigned'>>();
  let cursor = 0;
  let reading: Promise<void> | null = null;
  const refresh = (): Promise<void> => {
    reading ??= (async () => {
      const events = await log.read(runId, {
        afterSeq: cursor,
        kinds: ['subagent.created', 'task.assigned'],
      });
      for (const event of events) {
        cursor = Math.max(cursor, event.seq);
        if (isKind('subagent.created')(event)) subagents.set(event.data.name, event);
        else if (isKind('task.assigned')(event)) tasks.set(event.data.task, event);
      }
    })().finally(() => {
      reading = null;
    });
    return reading;
  };
  return {
    async find(agent: string, task: string) {
      // Committed before the session was enqueued: one read after the last one finds them.
      if (!subagents.has(agent) || !tasks.has(task)) await refresh();
      if (!subagents.has(agent) || !tasks.has(task)) await refresh();
      return { definition: subagents.get(agent), record: tasks.get(task) };
    },
    model: (agent: string): string | undefined => subagents.get(agent)?.data.model,
  };
}
