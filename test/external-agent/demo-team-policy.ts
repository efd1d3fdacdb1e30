/**
 * The fake provider's script for a mixed team finishing Colony's demo repository
 * (examples/demo-repo: three modules, each with a failing test): peer-1 runs Colony's own loop and
 * rewrites src/slugify.js with its `write` tool, peer-2 is Claude Code (Read, then Write of
 * src/word-count.js), peer-3 is Codex (`sed` in its shell on src/parse-duration.js). Each claims its
 * module over Colony's tools, merges through the queue and releases.
 */
import type { ScriptedPolicy } from '../../src/model/index.js';
import { claudeFixPolicy } from './claude-policy.js';
import { codexPolicy } from './codex-policy.js';

const SLUGIFY = `/** Turns a title into a URL slug: lower case, words joined by single dashes. */
export function slugify(title) {
  return title
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
`;

const WORD_COUNT = `/** Counts the words in a text; any run of whitespace separates words. */
export function wordCount(text) {
  const words = text.trim().split(/\\s+/);
  return words[0] === '' ? 0 : words.length;
}
`;

const builtIn: ScriptedPolicy = (request) => {
  const calls = request.messages.flatMap((m) => (m.role === 'assistant' ? m.toolCalls : []));
  const last = calls.at(-1)?.name;
  const scope = 'src/slugify.js';
  if (!last) return { toolCalls: [{ name: 'claim', arguments: { scope, summary: 'fix slugify' } }] };
  if (last === 'claim')
    return { toolCalls: [{ name: 'write', arguments: { path: scope, content: SLUGIFY } }] };
  if (last === 'write') return { toolCalls: [{ name: 'merge_request', arguments: { note: 'fix slugify' } }] };
  if (last === 'merge_request')
    return { toolCalls: [{ name: 'release', arguments: { scope, outcome: 'done: fix slugify' } }] };
  return { text: 'fix slugify: done and released' };
};

const claude = claudeFixPolicy((peer) =>
  peer === 2
    ? {
        scope: 'src/word-count.js',
        file: 'src/word-count.js',
        content: WORD_COUNT,
        note: 'fix word-count',
        outcome: 'done: fix word-count',
      }
    : undefined,
);

const codex = codexPolicy((peer) =>
  peer === 3
    ? {
        scope: 'src/parse-duration.js',
        command: "sed -i 's/m: 1,/m: 60,/' src/parse-duration.js",
        note: 'fix parse-duration',
      }
    : undefined,
);

export const demoTeamPolicy: ScriptedPolicy = (request, index) => {
  const peer = /Your peer ID is peer-(\d+)\./.exec(request.system)?.[1];
  if (peer === '1') return builtIn(request, index);
  if (peer === '2') return claude(request, index);
  if (peer === '3') return codex(request, index);
  return { text: 'ok' };
};
