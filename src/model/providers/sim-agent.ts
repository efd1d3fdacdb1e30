/**
 * The simulated agent's decisions (a scripted policy): it knows the fix (the task's reference.patch)
 * and whether this trial succeeds (a seeded draw against the task's true chance). On success it
 * makes every edit of the fix; on failure one file gets a plausible wrong edit instead (it touches
 * the right place and leaves the bug), so the graded outcome follows the draw. Every tool call goes
 * through Colony's normal loop and does real work; only the thinking is canned.
 * Solo (and any agent with edit tools): read each file, edit it hunk by hunk, answer. Peers (the
 * agent has `claim`): claim one file at a time (starting at its own index, skipping conflicts), sync,
 * read, edit, merge_request, wait for the outcome, release, next; answer when nothing is left.
 * Orchestrated: the lead makes one subagent per file and assigns each its file; subagents act solo.
 */
import type { Message, ModelRequest } from '../types.js';
import type { ScriptedPolicy, ScriptedTurn } from './scripted.js';
import type { SimFilePatch } from './sim-patch.js';

export interface SimPlan {
  taskId: string;
  files: SimFilePatch[];
  /** The draw: the trial succeeds (every edit right) or fails (`wrongFile` gets a wrong edit). */
  succeed: boolean;
  wrongFile: string | null;
  /** The true chance and the draw, for the agent's answer. */
  p: number;
  draw: number;
}

/** The wrong edit's mark: a peer that reads it knows the file was already attempted. */
export const SIM_WRONG_MARK = 'simulated attempt: this edit does not fix the bug';

const LABEL = '[simulated] ';

interface Exchange {
  name: string;
  args: Record<string, unknown>;
  result: string;
  isError: boolean;
}

/** The tool calls so far with their results (as src/demo/policy-helpers does, kept here: model is a lower layer). */
function exchanges(messages: readonly Message[]): Exchange[] {
  const results = new Map<string, { content: string; isError: boolean }>();
  for (const m of messages) if (m.role === 'tool') results.set(m.toolCallId, m);
  const out: Exchange[] = [];
  for (const m of messages) {
    if (m.role !== 'assistant') continue;
    for (const c of m.toolCalls) {
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(c.arguments) as Record<string, unknown>;
      } catch {
        // Our own calls are valid JSON.
      }
      const r = results.get(c.id);
      out.push({ name: c.name, args, result: r?.content ?? '', isError: r?.isError ?? false });
    }
  }
  return out;
}

const say = (text: string): ScriptedTurn => ({ text: `${LABEL}${text}` });
const call = (text: string, name: string, args: Record<string, unknown>): ScriptedTurn => ({
  text: `${LABEL}${text}`,
  toolCalls: [{ name, arguments: args }],
});

function commentFor(path: string): string {
  const hash = /\.(py|sh|rb|pl|r|ya?ml|toml)$/i.test(path);
  return `${hash ? '#' : '//'} ${SIM_WRONG_MARK}`;
}

/** The edits one file gets in this trial: the fix's hunks, or one wrong edit. */
function editsOf(plan: SimPlan, file: SimFilePatch): ScriptedTurn[] {
  if (file.path === plan.wrongFile) {
    const first = file.hunks[0];
    if (file.created || !first)
      return [
        call(`Writing ${file.path}.`, 'write', { path: file.path, content: `${commentFor(file.path)}\n` }),
      ];
    return [
      call(`Editing ${file.path}.`, 'edit', {
        path: file.path,
        old: first.old,
        new: `${commentFor(file.path)}\n${first.old}`,
      }),
    ];
  }
  if (file.created)
    return [call(`Writing ${file.path}.`, 'write', { path: file.path, content: file.content })];
  return file.hunks.map((h, i) =>
    call(`Fixing ${file.path} (${i + 1}/${file.hunks.length}).`, 'edit', {
      path: file.path,
      old: h.old,
      new: h.new,
    }),
  );
}

function isEditOf(e: Exchange, path: string): boolean {
  return (e.name === 'edit' || e.name === 'write') && e.args.path === path;
}

function answer(plan: SimPlan, who: string): ScriptedTurn {
  const verdict = plan.succeed
    ? 'the draw succeeded: I made the reference fix'
    : `the draw failed: ${plan.wrongFile} got a wrong edit`;
  return say(
    `${who}done with ${plan.taskId} (simulated agent, p = ${plan.p}, draw ${plan.draw.toFixed(4)}; ${verdict}).`,
  );
}

/** The files an orchestrated lead gave this subagent (`[sim files: a, b]` in its task), else all. */
function filesOf(plan: SimPlan, messages: readonly Message[]): SimFilePatch[] {
  const task = messages.find((m) => m.role === 'user')?.content ?? '';
  const tag = /\[sim files: ([^\]]*)\]/.exec(task)?.[1];
  if (tag === undefined) return plan.files;
  const mine = new Set(tag.split(',').map((p) => p.trim()));
  return plan.files.filter((f) => mine.has(f.path));
}

/** Solo, or an orchestrated subagent (`merges`: it lands its work with merge_request itself). */
function soloTurn(plan: SimPlan, files: SimFilePatch[], done: Exchange[], merges: boolean): ScriptedTurn {
  for (const file of files) {
    if (!file.created && !done.some((e) => e.name === 'read' && e.args.path === file.path))
      return call(`Reading ${file.path}.`, 'read', { path: file.path });
    const edits = editsOf(plan, file);
    const made = done.filter((e) => isEditOf(e, file.path)).length;
    const next = edits[made];
    if (next) return next;
  }
  const asked = done.find((e) => e.name === 'merge_request');
  if (merges && !asked) return call('Asking to land it.', 'merge_request', { note: 'sim: my files' });
  const mr = asked ? /Merge request (\d+) is queued/.exec(asked.result)?.[1] : undefined;
  if (merges && mr && !done.some((e) => e.name === 'merge_status'))
    return call('Waiting for the merge queue.', 'merge_status', { mr: Number(mr), wait: true });
  return answer(plan, '');
}

/** The file text of a `read` result (its lines come numbered: `  12\tcode`). */
function unnumbered(result: string): string {
  return result
    .split('\n')
    .map((l) => l.replace(/^\s*\d+\t/, ''))
    .join('\n');
}

/**
 * An orchestrated lead: one subagent per file of the fix, created in one turn, then every task
 * assigned in one turn (they run in parallel), then the answer.
 */
function leadTurn(plan: SimPlan, done: Exchange[]): ScriptedTurn {
  const names = plan.files.map((_, i) => `sim-coder-${i + 1}`);
  const many = (text: string, calls: Array<{ name: string; arguments: Record<string, unknown> }>) => ({
    text: `${LABEL}${text}`,
    toolCalls: calls,
  });
  if (!done.some((e) => e.name === 'create_subagent'))
    return many(
      `Creating ${names.length} subagent(s), one per file.`,
      names.map((name) => ({
        name: 'create_subagent',
        arguments: { name, system_prompt: 'A simulated coder: it edits the files it is given.' },
      })),
    );
  if (!done.some((e) => e.name === 'assign_task'))
    return many(
      'Assigning one file to each.',
      plan.files.map((f, i) => ({
        name: 'assign_task',
        arguments: { agent: names[i], prompt: `Fix ${f.path} for the goal. [sim files: ${f.path}]` },
      })),
    );
  return answer(plan, 'lead: ');
}

/** Whether a file read from main already holds this trial's change (a peer landed it before). */
function alreadyDone(file: SimFilePatch, result: string): boolean {
  const content = unnumbered(result);
  if (content.includes(SIM_WRONG_MARK)) return true;
  if (file.created) return false;
  return (
    file.hunks.length > 0 && file.hunks.every((h) => content.includes(h.new) && !content.includes(h.old))
  );
}

function peerTurn(plan: SimPlan, done: Exchange[], me: string, index: number): ScriptedTurn {
  const n = plan.files.length;
  const order = plan.files.map((_, i) => plan.files[(i + index) % n]!);
  const claims = done.filter((e) => e.name === 'claim');
  const tried = new Set(claims.map((c) => c.args.scope));
  const claimNext = (): ScriptedTurn => {
    const next = order.find((f) => !tried.has(f.path));
    return next
      ? call(`Claiming ${next.path}.`, 'claim', { scope: next.path, summary: `fix ${next.path}` })
      : answer(plan, `${me}: nothing left to claim; `);
  };
  const lastClaim = claims.at(-1);
  const current = plan.files.find((f) => f.path === lastClaim?.args.scope);
  const since = lastClaim ? done.slice(done.lastIndexOf(lastClaim)) : [];
  const last = done.at(-1);
  if (!last || !current || !lastClaim) return claimNext();
  if (since.some((e) => e.name === 'release')) return claimNext();
  if (lastClaim.isError || /^Conflict/.test(lastClaim.result)) return claimNext();
  const release = (outcome: string) =>
    call('Releasing my claim.', 'release', { scope: current.path, outcome });
  switch (last.name) {
    case 'claim':
      return call('Bringing in what landed on main.', 'sync', {});
    case 'sync':
      return current.created
        ? (editsOf(plan, current)[0] ?? release('nothing to do'))
        : call(`Reading ${current.path}.`, 'read', { path: current.path });
    case 'read':
      if (alreadyDone(current, last.result)) return release('already on main');
      return editsOf(plan, current)[0] ?? release('nothing to do');
    case 'edit':
    case 'write': {
      const made = since.filter((e) => isEditOf(e, current.path)).length;
      const next = editsOf(plan, current)[made];
      if (next) return next;
      return call('Asking to land it.', 'merge_request', { note: `sim: ${current.path}` });
    }
    case 'merge_request': {
      const mr = /Merge request (\d+) is queued/.exec(last.result)?.[1];
      if (mr) return call('Waiting for the merge queue.', 'merge_status', { mr: Number(mr), wait: true });
      return release(`merge request failed: ${last.result.split('\n')[0] ?? ''}`);
    }
    case 'merge_status':
      return release(last.isError ? `merge rejected: ${last.result.split('\n')[0] ?? ''}` : 'landed');
    default:
      return claimNext();
  }
}

/** The policy of one simulated trial: every agent of the team shares the plan (and so the draw). */
export function simAgentPolicy(plan: SimPlan): ScriptedPolicy {
  return (request: ModelRequest): ScriptedTurn => {
    const tools = new Set(request.tools.map((t) => t.name));
    const done = exchanges(request.messages);
    if (plan.files.length === 0) return say(`no reference fix known for ${plan.taskId}; nothing to do.`);
    if (tools.has('claim') && tools.has('merge_request')) {
      const id = /Your peer ID is (peer-(\d+))\./.exec(request.system);
      const index = id?.[2] ? Number(id[2]) - 1 : 0;
      return peerTurn(plan, done, id?.[1] ?? 'peer', index);
    }
    if (tools.has('edit') && tools.has('read'))
      return soloTurn(plan, filesOf(plan, request.messages), done, tools.has('merge_request'));
    if (tools.has('create_subagent') && tools.has('assign_task')) return leadTurn(plan, done);
    return say(
      `this agent has no edit tools (${[...tools].join(', ') || 'none'}); a simulated agent only edits.`,
    );
  };
}
