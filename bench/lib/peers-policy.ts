/**
 * The scripted peer of the peers scale benchmark. Every peer runs the protocol of prompts/peer.md on
 * a synthetic repository of N independent files (`files/fNNNNN.txt`, each "broken"): gather (`sync`
 * main into its worktree, `grep` what is still broken, `context_read` the CLAIMs), claim one file
 * picked at random among those still broken and not held by others, fix it, merge_request, release,
 * and gather again — until nothing is broken. A conflict (two peers picking the same file before
 * seeing each other's CLAIM) makes it pick again.
 * The policy is a function of the request alone (the conversation), so it works after a resume.
 */

import { seededRandom } from '../../src/core/random.js';
import type { ScriptedPolicy, ScriptedTurn } from '../../src/model/index.js';
import type { ModelRequest } from '../../src/model/types.js';

export const fileName = (i: number) => `files/f${String(i).padStart(5, '0')}.txt`;

type Call = { name: string; arguments: string };

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ name, arguments: args }],
});

export function peersBenchPolicy(): ScriptedPolicy {
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
    // Gather: sync (main into the worktree), list what is still broken, read the shared context.
    if (!last || last.name === 'release') return call('sync', {});
    if (last.name === 'sync') return call('bash', { command: 'grep -rl broken files || true' });
    if (last.name === 'bash') return call('context_read', { kinds: ['CLAIM'], limit: 200 });

    // What this peer knows: the broken files of its last look, minus those others hold or it tried.
    const lastLook = results[calls.map((c) => c.name).lastIndexOf('bash')] ?? '';
    const broken = [...new Set(lastLook.match(/files\/f\d+\.txt/g) ?? [])];
    const taken = new Set<string>();
    const lastGather = calls.map((c) => c.name).lastIndexOf('sync');
    for (const [i, result] of results.entries()) {
      if (i < lastGather) continue;
      for (const match of result.matchAll(/#\d+ CLAIM \S+ \[([^\]]*)\]/g))
        for (const file of (match[1] ?? '').split(', ')) taken.add(file);
    }
    const tried = calls
      .slice(lastGather)
      .flatMap((c) => (c.name === 'claim' ? [(JSON.parse(c.arguments) as { scope: string }).scope] : []));
    for (const file of tried) taken.add(file);
    const mine = tried.at(-1) ?? '';

    const pick = (): ScriptedTurn => {
      const left = broken.filter((f) => !taken.has(f));
      if (broken.length === 0) return { text: `${id[1]}: nothing is broken any more` };
      // Everything left is held by others: look again (they may fail and release).
      if (left.length === 0) return call('sync', {});
      // Seeded by peer and step, so a replayed conversation picks the same files.
      const random = seededRandom(Number(id[2]) * 7919 + calls.length * 104729);
      const file = left[Math.floor(random() * left.length)] as string;
      return call('claim', { scope: file, summary: `fix ${file}` });
    };

    switch (last.name) {
      case 'context_read':
        return pick();
      case 'claim':
        if (lastResult.startsWith('Conflict')) return pick();
        return call('write', { path: mine, content: `fixed ${mine}\n` });
      case 'write':
        return call('merge_request', { note: `fix ${mine}` });
      case 'merge_request':
        return call('release', {
          scope: mine,
          outcome: /landed/i.test(lastResult) ? 'landed' : 'not landed',
        });
      default:
        return { text: `${id[1]}: unexpected tool ${last.name}` };
    }
  };
}
