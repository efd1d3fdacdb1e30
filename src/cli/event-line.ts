/** One human-readable line per event for `colony run` and `colony logs`. */
import type { StoredEvent } from '../core/events.js';

export function formatEvent(event: StoredEvent): string | null {
  const who = event.agent ? `[${event.agent}] ` : '';
  const d = event.data as Record<string, unknown>;
  const time = event.ts.slice(11, 19);
  const line = describe(event, d);
  return line === null ? null : `${time} ${who}${line}`;
}

function describe(event: StoredEvent, d: Record<string, unknown>): string | null {
  switch (event.kind) {
    case 'run.started':
      return `run started (${d.topology}) on ${d.repo} with model ${d.model}`;
    case 'run.resumed':
      return `run resumed by pid ${d.pid}`;
    case 'run.finished':
      return `run finished: ${d.status} — ${d.reason}`;
    case 'workspace.ready':
      return `worktree ready on ${d.branch}`;
    case 'setup.finished':
      return `setup "${d.command}" exited ${d.exitCode} in ${d.durationMs} ms`;
    case 'agent.started':
      return `agent started (${d.profile}, ${d.model})`;
    case 'agent.finished':
      return `agent finished: ${d.status} (${d.reason}) after ${d.steps} steps`;
    case 'model.response': {
      const turn = event.data.turn;
      const calls = turn.toolCalls.map((c) => c.name).join(', ');
      const text = turn.text.trim().split('\n', 1)[0]?.slice(0, 100) ?? '';
      const what = calls ? `→ ${calls}` : `answer: ${text}`;
      return `step ${d.step} ${what}  (${turn.usage.input}+${turn.usage.cachedInput ?? 0} cached in, ${turn.usage.output} out, ${d.latencyMs} ms)`;
    }
    case 'model.error':
      return `model error (${d.kind}): ${d.message}`;
    case 'model.retry':
      return `retrying model call (attempt ${d.attempt}, ${d.kind}${d.status ? ` ${d.status}` : ''}) in ${d.delayMs} ms`;
    case 'tool.started':
      return null;
    case 'tool.finished':
      return `  ${d.summary}`;
    case 'limit.hit':
      return `limit hit: ${d.limit} = ${d.value} (used ${d.used})`;
    case 'compaction':
      return `conversation compacted (${d.replacedMessages} messages summarised)`;
    case 'commit.created':
      return `committed ${d.files} file(s) on ${d.branch}: ${String(d.commit).slice(0, 10)}`;
    case 'verify.finished':
      return `verify "${d.command}" ${d.passed ? 'passed' : `FAILED (exit ${d.exitCode})`}`;
    case 'result.fetched':
      return `result fetched into your repository as ${d.branch}`;
    case 'warning':
      return `warning: ${d.message}`;
    default:
      return event.kind;
  }
}
