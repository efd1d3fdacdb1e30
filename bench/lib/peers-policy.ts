/**
 * The scripted peer of the peers scale benchmark. Every peer runs the protocol of prompts/peer.md on
 * a synthetic repository of N independent files (`files/fNNNNN.txt`, each "broken"): gather
 * (context_read), claim one file picked at random among those it does not know to be taken or
 * landed, fix it, merge_request, release, and back to gathering — until it knows of nothing left.
 * A conflict (two peers picking the same file before seeing each other's CLAIM) makes it pick again.
 * The policy is a function of the request alone (the conversation), so it works after a resume.
 */

import type { ScriptedPolicy, ScriptedTurn } from '../../src/model/index.js';
import type { ModelRequest } from '../../src/model/types.js';

export const fileName = (i: number) => `files/f${String(i).padStart(5, '0')}.txt`;

type Call = { name: string; arguments: string };

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({
  toolCalls: [{ name, arguments: args }],
});

export function peersBenchPolicy(files: number): ScriptedPolicy {
  return (request: ModelRequest) => {
    const id = /Your peer ID is (peer-(\d+))\.$/.exec(request.system);
    if (!id) return { text: 'no peer ID in the system prompt' };
    const calls: Call[] = request.messages.flatMap((m) =>
      m.role === 'assistant' ? (m.toolCalls as Call[]) : [],
    );
    const results = request.messages.filter((m) => m.role === 'tool').map((m) => m.content);
    const last = calls.at(-1);
    const lastResult = results.at(-1) ?? '';
    if (!last) return call('context_read', {});

    // What this peer knows: files landed or claimed by others (from context_read), files it tried.
    const taken = new Set<string>();
    for (const result of results) {
      for (const match of result.matchAll(/#\d+ (?:PATCH|CLAIM) \S+ \[([^\]]*)\]/g))
        for (const file of (match[1] ?? '').split(', ')) taken.add(file);
    }
    const tried = calls
      .filter((c) => c.name === 'claim')
      .map((c) => (JSON.parse(c.arguments) as { scope: string }).scope);
    for (const file of tried) taken.add(file);
    const mine = tried.at(-1) ?? '';

    const pick = (): ScriptedTurn => {
      // Seeded by peer and attempt, so a replayed conversation picks the same files.
      const random = mulberry32(Number(id[2]) * 7919 + tried.length * 104729);
      for (let attempt = 0; attempt < 64; attempt++) {
        const file = fileName(Math.floor(random() * files));
        if (!taken.has(file)) return call('claim', { scope: file, summary: `fix ${file}` });
      }
      const left = Array.from({ length: files }, (_, i) => fileName(i)).filter((f) => !taken.has(f));
      if (left.length === 0) return { text: `${id[1]}: nothing left that I know of` };
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
      case 'release':
        return call('context_read', {});
      default:
        return { text: `${id[1]}: unexpected tool ${last.name}` };
    }
  };
}
