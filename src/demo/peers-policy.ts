/**
 * The scripted model of `colony demo peers`: one policy for every peer, reading the peer's ID from
 * the end of its system prompt. It is a policy, not a tape: each turn looks at the tool results so
 * far and follows the peer loop of prompts/peer.md — context_read, claim a module (on a conflict,
 * tell the holder by direct message that it yields and take another), sync, read, edit, run that
 * module's test, merge_request, release, and again until nothing is left. The peer that takes the
 * median module first tries a wrong fix, sees its test fail and posts a FAIL entry before retrying.
 * The slugify and median fixes also add a CHANGELOG.md line; the later of the two merges is rejected
 * for a conflict, and its peer syncs (merge: true), keeps both lines (sorted) and lands it.
 * Only the decisions are canned; every tool call does real work.
 */

import type { ScriptedPolicy, ScriptedTurn } from '../model/providers/scripted.js';
import type { ModelRequest } from '../model/types.js';
import { toolCall as call, toolExchanges as exchanges } from './policy-helpers.js';

interface ModuleFix {
  module: string;
  old: string;
  new: string;
  idea: string;
  /**
   * The fix also gets a line in CHANGELOG.md. Two such fixes (slugify, median) are worked on at the
   * same time from the same main, so the second merge is rejected for a conflict, resolved and landed.
   */
  changelog?: boolean;
  /** A plausible first attempt that does not pass the test (posted as FAIL). */
  wrong?: { new: string; idea: string };
}

/** In the order peers try them (peer-1/2 start at the first, peer-3/4 at the fourth). */
export const PEERS_DEMO_FIXES: ModuleFix[] = [
  {
    module: 'slugify',
    old: "return title.trim().replace(/[^A-Za-z0-9]/g, '-');",
    new: "return title\n    .trim()\n    .toLowerCase()\n    .replace(/[^a-z0-9]+/g, '-')\n    .replace(/^-+|-+$/g, '');",
    idea: 'lower-case, collapse runs of non-alphanumerics into one dash, trim dashes',
    changelog: true,
  },
  {
    module: 'word-count',
    old: "if (text.length === 0) return 0;\n  return text.split(' ').length;",
    new: "const words = text.trim().split(/\\s+/);\n  return words[0] === '' ? 0 : words.length;",
    idea: 'split on any whitespace run after trimming',
  },
  {
    module: 'parse-duration',
    old: 'const units = { h: 3600, m: 1, s: 1 };',
    new: 'const units = { h: 3600, m: 60, s: 1 };',
    idea: 'a minute is 60 seconds, not 1',
  },
  {
    module: 'median',
    old: 'const sorted = [...xs];',
    new: 'const sorted = [...xs].sort((a, b) => a - b);',
    idea: 'sort numerically before taking the middle',
    changelog: true,
    wrong: { new: 'const sorted = [...xs].sort();', idea: 'sort() before taking the middle' },
  },
  {
    module: 'clamp',
    old: 'return Math.max(lo, Math.min(lo, x));',
    new: 'return Math.max(lo, Math.min(hi, x));',
    idea: 'the upper bound is hi, not lo',
  },
  {
    module: 'capitalize',
    old: 'return word[0].toUpperCase() + word;',
    new: 'return word[0].toUpperCase() + word.slice(1);',
    idea: 'append the rest of the word, not the whole word',
  },
];

export const PEERS_DEMO_FINAL_VERIFY = 'node --test test/';
/**
 * Per merge the integration queue only checks that every module still parses: `node --test test/`
 * fails until the last module is fixed, so it would reject every partial merge. Each peer runs its
 * own module's test before merge_request, and the full suite is the final verify on hub main.
 */
export const PEERS_DEMO_MERGE_VERIFY = 'for f in src/*.js; do node --check "$f" || exit 1; done';

const CHANGELOG = 'CHANGELOG.md';
const UNRELEASED = '## Unreleased\n';
/**
 * Resolves an append/append conflict in the changelog by keeping both sides, its entries in sorted
 * order: which of two peers working at once lands first is a race, and the file must not depend on
 * it (a crash and resume can change who wins; kill-resume compares the result with an uninterrupted
 * run's). A doubled or lost entry still shows.
 */
export const RESOLVE_CHANGELOG =
  `sed -i -e '/^<<<<<<< /d' -e '/^=======$/d' -e '/^>>>>>>> /d' ${CHANGELOG}` +
  ` && { sed '/^## Unreleased$/q' ${CHANGELOG}; sed '1,/^## Unreleased$/d' ${CHANGELOG} | LC_ALL=C sort; }` +
  ` > ${CHANGELOG}.resolved && mv ${CHANGELOG}.resolved ${CHANGELOG} && cat ${CHANGELOG}`;

const fileOf = (fix: ModuleFix) => `src/${fix.module}.js`;
const testOf = (fix: ModuleFix) => `node --test test/${fix.module}.test.js`;

export const peersDemoPolicy: ScriptedPolicy = (request: ModelRequest): ScriptedTurn => {
  const id = /Your peer ID is (peer-(\d+))\.$/.exec(request.system);
  if (!id?.[1]) return { text: 'No peer ID in the system prompt; nothing to do.' };
  const me = id[1];
  const index = Number(id[2]) - 1;
  // Pairs of peers start on the same module, so the first claims race for real.
  const start = (Math.floor(index / 2) * 3) % PEERS_DEMO_FIXES.length;
  const order = [...PEERS_DEMO_FIXES.slice(start), ...PEERS_DEMO_FIXES.slice(0, start)];

  const done = exchanges(request.messages);
  const last = done.at(-1);
  if (!last) return call('Gathering: what has been posted so far?', 'context_read', {});

  const seen = done
    .filter((e) => e.name === 'context_read')
    .map((e) => e.result)
    .join('\n');
  const claims = done.filter((e) => e.name === 'claim');
  const current = PEERS_DEMO_FIXES.find((f) => fileOf(f) === claims.at(-1)?.args.scope);

  const pickNext = (): ScriptedTurn => {
    const tried = new Set(claims.map((c) => c.args.scope));
    const next = order.find(
      (f) => !tried.has(fileOf(f)) && !new RegExp(`PATCH [^\\n]*${fileOf(f)}`).test(seen),
    );
    if (!next) {
      const mine = done.filter((e) => e.name === 'merge_status' && /landed on main/.test(e.result)).length;
      return { text: `${me}: nothing left to claim; I landed ${mine} fix(es).` };
    }
    return call(`Claiming ${fileOf(next)}.`, 'claim', { scope: fileOf(next), summary: `fix ${next.module}` });
  };

  switch (last.name) {
    case 'context_read':
    case 'message_send':
      return pickNext();
    case 'claim': {
      const conflict = /^Conflict: (peer-\d+) holds/.exec(last.result);
      if (conflict?.[1])
        return call(`${conflict[1]} holds it; I yield.`, 'message_send', {
          to: conflict[1],
          text: `${me} here: you hold ${String(last.args.scope)}, so I yield it to you and take another module.`,
        });
      if (last.isError || !current) return pickNext();
      return call('Bringing in what landed on main first.', 'sync', {});
    }
    case 'sync': {
      if (!current) return pickNext();
      if (/Merging main left conflicts/.test(last.result))
        return call('Both changelog lines belong; keeping both.', 'bash', { command: RESOLVE_CHANGELOG });
      if (/Call sync with merge: true/.test(last.result))
        return call('Merging main in to resolve the conflict.', 'sync', { merge: true });
      const before = done.at(-2);
      if (before?.name === 'merge_status' && before.isError)
        return call('Rebased on main; asking again.', 'merge_request', {
          note: `fix ${current.module}: ${current.idea}`,
        });
      return call(`Reading ${fileOf(current)}.`, 'read', { path: fileOf(current) });
    }
    case 'read': {
      if (!current) return pickNext();
      if (last.result.includes(current.new))
        return call('Already fixed on main.', 'release', {
          scope: fileOf(current),
          outcome: 'already fixed on main',
        });
      const failedBefore = new RegExp(`FAIL [^\\n]*${fileOf(current)}`).test(seen);
      const attempt = current.wrong && !failedBefore ? current.wrong : current;
      return call(`Fix: ${attempt.idea}.`, 'edit', {
        path: fileOf(current),
        old: current.old,
        new: attempt.new,
      });
    }
    case 'edit':
      if (last.args.path === CHANGELOG)
        return current
          ? call('Asking to land it.', 'merge_request', { note: `fix ${current.module}: ${current.idea}` })
          : pickNext();
      return current ? call('Running its test.', 'bash', { command: testOf(current) }) : pickNext();
    case 'bash': {
      if (!current) return pickNext();
      if (last.args.command === RESOLVE_CHANGELOG)
        return call('Resolved; asking again.', 'merge_request', {
          note: `fix ${current.module}: ${current.idea}`,
        });
      const passed = /# fail 0\b/.test(last.result) && !last.isError;
      if (passed && !current.changelog)
        return call('The test passes; asking to land it.', 'merge_request', {
          note: `fix ${current.module}: ${current.idea}`,
        });
      if (passed)
        return call('The test passes; noting it in the changelog.', 'edit', {
          path: CHANGELOG,
          old: UNRELEASED,
          new: `${UNRELEASED}- ${current.module}: ${current.idea}\n`,
        });
      const lastEdit = done.filter((e) => e.name === 'edit').at(-1);
      if (current.wrong && lastEdit?.args.new === current.wrong.new)
        return call('That did not work; recording it so nobody repeats it.', 'context_post', {
          kind: 'FAIL',
          summary: `${current.wrong.idea} does not fix ${current.module}: sort() compares numbers as strings`,
          scope: fileOf(current),
        });
      return call('Still failing; giving it back.', 'release', {
        scope: fileOf(current),
        outcome: `gave up: ${testOf(current)} still fails`,
      });
    }
    case 'context_post':
      return current?.wrong
        ? call(`Retrying: ${current.idea}.`, 'edit', {
            path: fileOf(current),
            old: current.wrong.new,
            new: current.new,
          })
        : pickNext();
    case 'merge_request': {
      // Submit and move on: the queue answers at once. With nothing else to do, wait for the outcome.
      const mr = /Merge request (\d+) is queued/.exec(last.result)?.[1];
      if (mr) return call('Waiting for the merge queue.', 'merge_status', { mr: Number(mr), wait: true });
      return current
        ? call('Releasing my claim.', 'release', {
            scope: fileOf(current),
            outcome: `merge request failed: ${last.result.split('\n')[0]}`,
          })
        : pickNext();
    }
    case 'merge_status':
      if (current && last.isError && /\(conflict\)/.test(last.result))
        return call('Rejected for a conflict: bringing main in.', 'sync', {});
      return current
        ? call('Releasing my claim.', 'release', {
            scope: fileOf(current),
            outcome: last.isError ? `merge rejected: ${last.result.split('\n')[0]}` : 'landed on main',
          })
        : pickNext();
    case 'release':
      return call('Back to gathering.', 'context_read', {});
    default:
      return pickNext();
  }
};
