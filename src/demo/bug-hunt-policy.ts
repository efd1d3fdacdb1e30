/**
 * The scripted model of the bug-hunt workflow (examples/workflows/bug-hunt.ts on examples/peers-repo):
 * the planner lists src/ and splits it into three slices (median.js sits in two of them, so two
 * hunters report the same bug and the program de-duplicates it); each hunter reads its files and
 * reports the planted bug of each (PEERS_DEMO_FIXES) with its real line number; each fixer reads its
 * file, makes the fix, runs that module's test and answers. Only the decisions are canned.
 */
import type { ScriptedPolicy, ScriptedTurn } from '../model/providers/scripted.js';
import { PEERS_DEMO_FIXES } from './peers-policy.js';
import { toolCall as call, toolExchanges as exchanges, taskText } from './policy-helpers.js';

export const BUG_HUNT_SLICES = [
  ['src/slugify.js', 'src/word-count.js', 'src/median.js'],
  ['src/parse-duration.js', 'src/median.js'],
  ['src/clamp.js', 'src/capitalize.js'],
];

export const bugHuntDemoPolicy: ScriptedPolicy = (request): ScriptedTurn => {
  const task = taskText(request.messages);
  const done = exchanges(request.messages);
  if (task.startsWith('Split the source files')) {
    if (done.length === 0) return call('Listing the sources.', 'ls', { path: 'src' });
    return { text: JSON.stringify({ slices: BUG_HUNT_SLICES }) };
  }
  const hunt = /^Find the bugs in these files: (.+)$/m.exec(task);
  if (hunt?.[1]) {
    const files = hunt[1].split(',').map((f) => f.trim());
    const unread = files.find((f) => !done.some((e) => e.name === 'read' && e.path === f));
    if (unread) return call(`Reading ${unread}.`, 'read', { path: unread });
    const bugs = files.flatMap((file) => {
      const fix = PEERS_DEMO_FIXES.find((f) => `src/${f.module}.js` === file);
      const content = done.find((e) => e.name === 'read' && e.path === file)?.result ?? '';
      if (!fix) return [];
      return [
        {
          file,
          line: lineOf(content, fix.old),
          title: fix.idea,
          evidence: fix.old.split('\n')[0]?.trim() ?? '',
        },
      ];
    });
    return { text: JSON.stringify({ bugs }) };
  }
  const fixing = /^Fix this bug in (\S+) \(line \d+\)/m.exec(task);
  const fix = PEERS_DEMO_FIXES.find((f) => `src/${f.module}.js` === fixing?.[1]);
  if (fixing?.[1] && fix) {
    const file = fixing[1];
    if (!done.some((e) => e.name === 'read')) return call(`Reading ${file}.`, 'read', { path: file });
    if (!done.some((e) => e.name === 'edit'))
      return call(fix.idea, 'edit', { path: file, old: fix.old, new: fix.new });
    if (!done.some((e) => e.name === 'bash'))
      return call('Running its test.', 'bash', { command: `node --test test/${fix.module}.test.js` });
    return { text: `Fixed ${file}: ${fix.idea}.` };
  }
  return { text: 'Nothing to do.' };
};

/** The 1-based line of `code`'s first line in a `read` result (lines are "N\ttext"). */
function lineOf(readResult: string, code: string): number {
  const first = code.split('\n')[0]?.trim() ?? '';
  for (const line of readResult.split('\n')) {
    const m = /^\s*(\d+)\t(.*)$/.exec(line);
    if (m?.[2]?.includes(first)) return Number(m[1]);
  }
  return 1;
}
