/**
 * The scripted peer of the peers scale benchmark. Every peer runs the protocol of prompts/peer.md on
 * a synthetic repository of N independent files (`files/fNNNNN.txt`, each "broken"), submitting and
 * moving on: a merge request answers once queued, its outcome arrives as a direct message, and the
 * peer keeps the claim until then (it releases the file once the message says it landed).
 *
 * Two ways to find work (`mode`):
 * - `claims` (free-form claims): gather (`sync` main in, `grep` what is still broken, `context_read`
 *   for the claims held now: its "Open claims now" line), claim one file picked at random among those
 *   still broken and not held, fix it, merge_request, and gather again. Two peers picking the same
 *   file before seeing each other's claim is a claim conflict; the loser takes one of the free paths
 *   the conflict suggests that its last look found broken, else reads the claims held now and picks
 *   again. A grant that says a PATCH already covers the file (fixed since the peer's last look) is
 *   released, and it looks again.
 * - `board` (the task board): `claim_next`; on an empty board one peer claims `task:plan`, lists the
 *   broken files and adds one task per file (the others wait on `claim_next`); then claim_next, fix,
 *   merge_request, claim_next… A task is handed out once: no conflicts on files.
 *
 * With nothing left to take (nothing broken, or every broken file held by another peer), a peer waits
 * for its own outstanding requests (`merge_status {wait}`), looks once more after they settle, and
 * answers. The policy is a function of the request alone (the conversation), so it works
 * after a resume.
 */

import { seededRandom } from '../../src/core/random.js';
import type { ScriptedPolicy, ScriptedTurn } from '../../src/model/index.js';
import type { ModelRequest } from '../../src/model/types.js';

export const fileName = (i: number) => `files/f${String(i).padStart(5, '0')}.txt`;

export type PeersBenchMode = 'claims' | 'board';

type Call = { name: string; arguments: string };

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ name, arguments: args }],
});

/** What the conversation says about this peer's merge requests: file → MR, and which have an outcome. */
interface Merges {
  /** Submitted and not released yet, oldest first: the MR and the file it fixes. */
  open: { mr: number; file: string }[];
  /** MRs whose outcome the peer has seen (a direct message or merge_status), with it. */
  outcome: Map<number, 'landed' | 'empty' | 'rejected'>;
}

function mergesOf(request: ModelRequest, calls: Call[], results: string[]): Merges {
  const outcome = new Map<number, 'landed' | 'empty' | 'rejected'>();
  for (const m of request.messages) {
    if (m.role === 'assistant') continue;
    for (const found of m.content.matchAll(
      /merge request (\d+) (landed|was rejected: it changes nothing|was rejected|changes nothing)/gi,
    )) {
      const what = found[2] ?? '';
      outcome.set(
        Number(found[1]),
        /landed/i.test(what) ? 'landed' : /nothing/i.test(what) ? 'empty' : 'rejected',
      );
    }
  }
  const open: Merges['open'] = [];
  const released = new Set<string>();
  for (const [i, c] of calls.entries()) {
    if (c.name === 'release') released.add((JSON.parse(c.arguments) as { scope: string }).scope);
    if (c.name !== 'merge_request') continue;
    const mr = /Merge request (\d+) is queued/.exec(results[i] ?? '')?.[1];
    const file = /^fix (\S+)/.exec((JSON.parse(c.arguments) as { note: string }).note)?.[1];
    if (mr && file) open.push({ mr: Number(mr), file });
  }
  return { open: open.filter((o) => !released.has(o.file)), outcome };
}

export function peersBenchPolicy(mode: PeersBenchMode = 'claims'): ScriptedPolicy {
  return (request: ModelRequest) => {
    const id = /Your peer ID is (peer-(\d+))\.$/.exec(request.system);
    if (!id) return { text: 'no peer ID in the system prompt' };
    const calls: Call[] = request.messages.flatMap((m) =>
      m.role === 'assistant' ? (m.toolCalls as Call[]) : [],
    );
    // One tool call per turn: results pair with calls by position.
    const results = request.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    const last = calls.at(-1);
    const lastResult = results.at(-1) ?? '';
    const merges = mergesOf(request, calls, results);

    // First, let go of what landed (the claim was kept until its outcome came).
    const settled = merges.open.find((o) => merges.outcome.has(o.mr));
    if (settled) {
      const how = merges.outcome.get(settled.mr);
      return call('release', {
        scope: settled.file,
        // Nothing to merge: main has the change already (an earlier request of this peer carried it).
        outcome: how === 'landed' ? 'landed' : how === 'empty' ? 'done: already on main' : 'not landed',
      });
    }
    // A release above may have come between two steps of the work: pick the work up where it was.
    const names = calls.map((c) => c.name);
    const lastWrite = names.lastIndexOf('write');
    if (lastWrite > names.lastIndexOf('merge_request') && last?.name === 'release') {
      const file = (JSON.parse(calls[lastWrite]?.arguments ?? '{}') as { path: string }).path;
      return call('merge_request', { note: `fix ${file}` });
    }
    const granted = Math.max(
      ...calls.map((c, i) =>
        (c.name === 'claim_next' && /You now hold/.test(results[i] ?? '')) ||
        (c.name === 'claim' && /^Granted/.test(results[i] ?? '') && !c.arguments.includes('task:plan'))
          ? i
          : -1,
      ),
    );
    if (granted > lastWrite && last?.name === 'release' && granted >= 0) {
      const result = results[granted] ?? '';
      const file =
        /Scope: (files\/f\d+\.txt)\./.exec(result)?.[1] ??
        (JSON.parse(calls[granted]?.arguments ?? '{}') as { scope?: string }).scope;
      // Not the grant this release just let go of (already landed: claims mode looks again).
      const releasedNow = (JSON.parse(last.arguments) as { scope?: string }).scope;
      if (file && file !== releasedNow) return call('write', { path: file, content: `fixed ${file}\n` });
    }
    // Nothing left to take: wait for this peer's own requests, then answer.
    const finish = (why: string): ScriptedTurn => {
      const waiting = merges.open[0];
      if (waiting) return call('merge_status', { mr: waiting.mr, wait: true });
      return { text: `${id[1]}: ${why}` };
    };
    return mode === 'board'
      ? boardTurn(id[1] as string, calls, results, last, lastResult, finish)
      : claimsTurn(Number(id[2]), calls, results, last, lastResult, finish);
  };
}

function boardTurn(
  me: string,
  calls: Call[],
  results: string[],
  last: Call | undefined,
  lastResult: string,
  finish: (why: string) => ScriptedTurn,
): ScriptedTurn {
  const mine = calls.filter((c) => c.name === 'claim_next').length;
  if (!last || last.name === 'release' || last.name === 'merge_request' || last.name === 'merge_status')
    return call('claim_next', {});
  switch (last.name) {
    case 'claim_next': {
      // A task this peer holds already (its merge request is on the way): wait for that, not redo it.
      if (/You already hold this task/.test(lastResult)) return finish('waiting for my merge requests');
      const file = /Scope: (files\/f\d+\.txt)\./.exec(lastResult)?.[1];
      if (file) return call('write', { path: file, content: `fixed ${file}\n` });
      // Nothing ready. An empty board: plan it (one peer wins task:plan; the others look again).
      if (/The board is empty/.test(lastResult)) {
        const planned = calls.some((c) => c.name === 'claim' && c.arguments.includes('task:plan'));
        if (!planned) return call('claim', { scope: 'task:plan', summary: 'list the broken files as tasks' });
        // Another peer is planning: wait for its tasks (prompts/peer.md) rather than ask turn after turn.
        return call('claim_next', { wait: true });
      }
      // Tasks wait for predecessors: wait for one. Otherwise what is left is held by others (or done):
      // wait for this peer's own requests, then answer.
      if (/\b[1-9]\d* blocked\b/.test(lastResult) && !/Every task is done/.test(lastResult))
        return call('claim_next', { wait: true });
      return finish(`nothing left for me on the board after ${mine} claim_next calls`);
    }
    case 'claim':
      if (/^Granted/.test(lastResult)) return call('bash', { command: 'grep -rl broken files || true' });
      return call('claim_next', { wait: true });
    case 'bash': {
      const broken = [...new Set(lastResult.match(/files\/f\d+\.txt/g) ?? [])];
      return call('tasks_add', { tasks: broken.map((file) => ({ title: `fix ${file}`, scope: file })) });
    }
    case 'tasks_add':
      return call('release', { scope: 'task:plan', outcome: 'done: tasks added' });
    case 'write': {
      const file = (JSON.parse(last.arguments) as { path: string }).path;
      return call('merge_request', { note: `fix ${file}` });
    }
    default:
      return { text: `${me}: unexpected tool ${last.name} (${results.length} results)` };
  }
}

function claimsTurn(
  peer: number,
  calls: Call[],
  results: string[],
  last: Call | undefined,
  lastResult: string,
  finish: (why: string) => ScriptedTurn,
): ScriptedTurn {
  // Gather: sync (main into the worktree), list what is still broken, read the shared context.
  if (!last || last.name === 'release' || last.name === 'merge_request' || last.name === 'merge_status')
    return call('sync', {});
  if (last.name === 'sync') return call('bash', { command: 'grep -rl broken files || true' });
  // The claims held now are one line of the answer (the CLAIM gists themselves are history).
  if (last.name === 'bash') return call('context_read', { kinds: ['CLAIM'], limit: 1 });

  // What this peer knows: the broken files of its last look, minus those held or it tried.
  const lastLook = results[calls.map((c) => c.name).lastIndexOf('bash')] ?? '';
  const broken = [...new Set(lastLook.match(/files\/f\d+\.txt/g) ?? [])];
  const taken = new Set<string>();
  const lastGather = calls.map((c) => c.name).lastIndexOf('sync');
  for (const [i, result] of results.entries()) {
    if (i < lastGather) continue;
    const open = /^Open claims now \(\d+\): (.*)$/m.exec(result)?.[1] ?? '';
    for (const file of open.match(/files\/f\d+\.txt/g) ?? []) taken.add(file);
  }
  const tried = calls
    .slice(lastGather)
    .flatMap((c) => (c.name === 'claim' ? [(JSON.parse(c.arguments) as { scope: string }).scope] : []));
  for (const file of tried) taken.add(file);
  const mine = tried.at(-1) ?? '';

  const pick = (): ScriptedTurn => {
    const left = broken.filter((f) => !taken.has(f));
    if (broken.length === 0) return finish('nothing is broken any more');
    // Everything left is held by others: nothing is left to claim (prompts/peer.md), so wait for this
    // peer's own requests and answer. A holder whose request is rejected takes its file up again.
    if (left.length === 0) return finish('everything still broken is held by other peers');
    // Seeded by peer and step, so a replayed conversation picks the same files.
    const random = seededRandom(peer * 7919 + calls.length * 104729);
    const file = left[Math.floor(random() * left.length)] as string;
    return call('claim', { scope: file, summary: `fix ${file}` });
  };

  switch (last.name) {
    case 'context_read':
      return pick();
    case 'claim':
      if (lastResult.startsWith('Conflict')) {
        // The conflict's suggestions are fresh (nobody has claimed them yet): take one still broken.
        const suggested = [...lastResult.matchAll(/^- (files\/f\d+\.txt)$/gm)].map((m) => m[1] as string);
        const fresh = suggested.filter((f) => broken.includes(f) && !taken.has(f));
        // None: this peer's view of the claims is stale (others claimed since it looked). Look at the
        // claims held now before picking again, rather than claim one stale guess after another.
        if (fresh.length === 0) return call('context_read', { kinds: ['CLAIM'], limit: 1 });
        const random = seededRandom(peer * 7919 + calls.length * 104729);
        const file = fresh[Math.floor(random() * fresh.length)] as string;
        return call('claim', { scope: file, summary: `fix ${file}` });
      }
      // Granted, but a PATCH covers it: its fix landed after this peer's last look. Let go, look again.
      if (/Note: a PATCH entry already covers/.test(lastResult))
        return call('release', { scope: mine, outcome: 'already landed' });
      return call('write', { path: mine, content: `fixed ${mine}\n` });
    case 'write':
      return call('merge_request', { note: `fix ${mine}` });
    default:
      return { text: `peer-${peer}: unexpected tool ${last.name}` };
  }
}
