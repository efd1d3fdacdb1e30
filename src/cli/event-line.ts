/**
 * One human-readable line per event for `colony run`, `colony logs` and `colony show`. Most of what
 * a line quotes is the agents' (their text, notes, names, tool output): the line is printed with
 * its control characters made visible (core/terminal-text.ts).
 */
import type { StoredEvent } from '../core/events.js';
import { terminalText } from '../core/terminal-text.js';
import { limitHitText } from '../view/limit-text.js';

export function formatEvent(event: StoredEvent): string | null {
  const who = event.agent ? `[${event.agent}] ` : '';
  const d = event.data as Record<string, unknown>;
  const time = event.ts.slice(11, 19);
  const line = describe(event, d);
  return line === null ? null : terminalText(`${time} ${who}${line}`);
}

function describe(event: StoredEvent, d: Record<string, unknown>): string | null {
  switch (event.kind) {
    case 'run.started':
      return `run started (${d.topology}) on ${d.repo} with model ${d.model}`;
    case 'run.resumed':
      return `run resumed by pid ${d.pid}`;
    case 'run.recovered':
      return `recovered by ${d.by}: its process was gone, the log silent for ${Math.round(Number(d.afterMs) / 1000)} s`;
    case 'run.finished':
      return `run finished: ${d.status} — ${d.reason}`;
    case 'workspace.ready':
      return `worktree ready on ${d.branch}`;
    case 'setup.finished':
      return `setup "${d.command}" exited ${d.exitCode} in ${d.durationMs} ms`;
    case 'agent.placed':
      return d.takeover === true
        ? `taken over by worker ${d.worker} (host ${d.host}, epoch ${d.epoch})`
        : `placed on worker ${d.worker} (host ${d.host})`;
    case 'worker.lost':
      return `worker ${d.worker} lost (silent ${d.silentMs} ms): ${d.reenqueued} session(s) re-enqueued by ${d.by}`;
    case 'agent.started':
      return `agent started (${d.profile}, ${d.model})`;
    case 'agent.finished':
      return `agent finished: ${d.status} (${d.reason}) after ${d.steps} steps`;
    case 'agent.cli':
      return agentCliText(event.data);
    case 'model.response': {
      const turn = event.data.turn;
      const calls = turn.toolCalls.map((c) => c.name).join(', ');
      const text = turn.text.trim().split('\n', 1)[0]?.slice(0, 100) ?? '';
      const what = calls ? `→ ${calls}` : `answer: ${text}`;
      return `step ${d.step} ${what}  (${usageText(turn.usage)}, ${d.latencyMs} ms)`;
    }
    case 'model.error':
      return `model error (${d.kind}): ${d.message}`;
    case 'model.retry':
      return `retrying model call (attempt ${d.attempt}, ${d.kind}${d.status ? ` ${d.status}` : ''}) in ${d.delayMs} ms`;
    case 'tool.started':
    case 'tool.intent':
      return null;
    case 'tool.finished':
      return `  ${d.summary}`;
    case 'limit.hit':
      return limitHitText(event.data);
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
      return describeTeamEvent(event.kind, d);
  }
}

/** Which external agent CLI (claude-code, codex, cmd) did what. */
function agentCliText(d: StoredEvent<'agent.cli'>['data']): string {
  const cli = `agent CLI ${d.cli}`;
  switch (d.event) {
    case 'started':
      return `${cli} started${d.pid ? ` (pid ${d.pid})` : ''}`;
    case 'session':
      return `${cli} session ${d.sessionId ?? '(none)'}`;
    case 'exited':
      if (d.detail) return `${cli} exited: ${d.detail}`;
      return `${cli} exited${d.exitCode === undefined || d.exitCode === null ? '' : ` with code ${d.exitCode}`}`;
    case 'restarted':
      return `${cli} restarted (restart ${d.restart ?? '?'})${d.detail ? `: ${d.detail}` : ''}`;
  }
}

/** Input as uncached + cached (+ cache writes, which Anthropic bills apart), then output. */
function usageText(u: { input: number; cachedInput?: number; cacheWrite?: number; output: number }): string {
  const writes = u.cacheWrite ? ` + ${u.cacheWrite} cache writes` : '';
  return `${u.input}+${u.cachedInput ?? 0} cached${writes} in, ${u.output} out`;
}

/** Coordination, integration, orchestration and workflow events in words (never a raw kind). */
function describeTeamEvent(kind: string, d: Record<string, unknown>): string {
  const s = (v: unknown) => String(v);
  switch (kind) {
    case 'subagent.created':
      return `created subagent ${s(d.name)} (${s(d.profile)}, ${s(d.model)})`;
    case 'task.assigned':
      return `assigned ${s(d.task)} to ${s(d.agent)}: ${firstLine(d.prompt)}`;
    case 'task.started':
      return `started ${s(d.task)}: ${firstLine(d.prompt)}`;
    case 'task.finished':
      return `finished ${s(d.task)}: ${s(d.status)} in ${s(d.steps)} step(s)`;
    case 'merge.requested':
      return `merge request #${s(d.mr)} from ${s(d.branch)}: ${firstLine(d.note)}`;
    case 'merge.landed':
      return `merge request #${s(d.mr)} landed on main: ${s(d.commit).slice(0, 10)}`;
    case 'merge.rejected':
      return `merge request #${s(d.mr)} rejected (${s(d.reason)})`;
    case 'merge.awaiting_approval':
      return `merge request #${s(d.mr)} passed its check and waits for approval (colony approve RUN ${s(d.mr)})`;
    case 'merge.approved':
      return `merge request #${s(d.mr)} approved by ${s(d.by)}`;
    case 'merge.declined':
      return `merge request #${s(d.mr)} declined by ${s(d.by)}: ${firstLine(d.reason)}`;
    case 'claim.granted':
      return `claimed ${s(d.scope)}: ${firstLine(d.summary)}`;
    case 'claim.conflict':
      return `claim of ${s(d.scope)} refused: ${s(d.holder)} holds ${s(d.holderScope)}`;
    case 'claim.released':
      return `released ${s(d.scope)} (${s(d.outcome)})`;
    case 'claim.expired':
      return `claim of ${s(d.scope)} by ${s(d.holder)} expired`;
    case 'context.posted':
      return `posted ${s(d.kind)}: ${firstLine(d.summary)}`;
    case 'message.sent':
      return `message to ${d.to ? s(d.to) : `#${s(d.channel)}`}: ${firstLine(d.text)}`;
    case 'message.delivered':
      return `read ${Array.isArray(d.ids) ? d.ids.length : 0} message(s) (${s(d.via)})`;
    case 'workspace.synced':
      return `synced with main (${s(d.landedSince)} landed since)`;
    case 'agent.nudged':
      return `nudged after ${Math.round(Number(d.idleMs) / 1000)} s without progress`;
    case 'agent.stalled':
      return 'stalled: its claims are no longer renewed';
    case 'run.stop_requested':
      return `stop requested by ${s(d.by)}${d.reason ? `: ${firstLine(d.reason)}` : ''}`;
    case 'acceptance.finished':
      return `acceptance check round ${s(d.round)}: ${d.passed ? 'passed' : 'failed'}`;
    case 'stage.started':
      return `stage ${s(d.name)} started`;
    case 'stage.finished':
      return `stage ${s(d.stage)} ${d.ok ? 'finished' : `failed: ${firstLine(d.error)}`}`;
    case 'step.started':
      return `step ${s(d.label)} started (${s(d.profile)})`;
    case 'step.finished':
      if (d.reusedFrom !== undefined)
        return `step ${s(d.step)} re-used from ${s(d.reusedFrom)} (not run again)`;
      return `step ${s(d.step)} ${d.ok ? 'finished' : `failed: ${firstLine(d.error)}`}`;
    case 'sync.finished':
      return `sync point "${s(d.command)}" ${d.passed ? 'passed' : `FAILED (exit ${s(d.exitCode)})`}`;
    case 'workflow.planned':
      return `dag planned: CriticalSteps ${s(d.criticalSteps)} (${Array.isArray(d.criticalPath) ? d.criticalPath.join(' → ') : ''})`;
    case 'workflow.finished':
      return `workflow ${d.ok ? 'finished' : `failed: ${firstLine(d.error)}`}`;
    default:
      // A kind without its own line still reads as words ("merge approval ignored").
      return kind.replace(/[._]/g, ' ');
  }
}

function firstLine(v: unknown): string {
  const line =
    String(v ?? '')
      .trim()
      .split('\n', 1)[0] ?? '';
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
