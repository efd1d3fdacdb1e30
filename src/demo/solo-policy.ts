/**
 * The scripted model of `colony demo solo`. It is a policy, not a fixed tape: it reads the test
 * output it gets back, fixes only the modules whose tests fail (the fixes themselves are scripted),
 * re-runs the tests and reports. Real tools do real work on a real worktree; only the "thinking" is
 * canned. Run the same goal with a real model to see the real thing.
 */

import type { ScriptedPolicy, ScriptedTurn } from '../model/providers/scripted.js';
import type { ModelRequest } from '../model/types.js';
import { toolExchanges as exchanges } from './policy-helpers.js';

interface ScriptedFix {
  /** Text that appears in the test output when this module's test fails. */
  failsWith: string;
  file: string;
  old: string;
  new: string;
  idea: string;
  /** The bug as a reviewer reports it (`colony demo planned`). */
  bug: string;
}

export const DEMO_TEST_COMMAND = 'node --test test/';

/** The demo repository's three bugs and their scripted fixes (also used by `colony demo planned`). */
export const DEMO_FIXES: readonly ScriptedFix[] = [
  {
    failsWith: 'slugify lower-cases',
    file: 'src/slugify.js',
    old: "return title.trim().replace(/[^A-Za-z0-9]/g, '-');",
    new: "return title\n    .trim()\n    .toLowerCase()\n    .replace(/[^a-z0-9]+/g, '-')\n    .replace(/^-+|-+$/g, '');",
    idea: 'lower-case, collapse runs of non-alphanumerics into one dash, trim dashes',
    bug: 'the slug keeps upper case and turns every non-alphanumeric character into its own dash',
  },
  {
    failsWith: 'wordCount treats any whitespace',
    file: 'src/word-count.js',
    old: "if (text.length === 0) return 0;\n  return text.split(' ').length;",
    new: "const words = text.trim().split(/\\s+/);\n  return words[0] === '' ? 0 : words.length;",
    idea: 'split on any whitespace run after trimming',
    bug: 'words are split on single spaces only, so runs of whitespace, tabs and newlines miscount',
  },
  {
    failsWith: 'parseDuration handles',
    file: 'src/parse-duration.js',
    old: 'const units = { h: 3600, m: 1, s: 1 };',
    new: 'const units = { h: 3600, m: 60, s: 1 };',
    idea: 'a minute is 60 seconds, not 1',
    bug: 'a minute counts as 1 second (units.m is 1)',
  },
];

export const soloDemoPolicy: ScriptedPolicy = (request: ModelRequest): ScriptedTurn => {
  const done = exchanges(request.messages);
  const testRuns = done.filter((e) => e.name === 'bash');
  const firstRun = testRuns[0];
  if (!firstRun) {
    return {
      text: 'Let me run the test suite to see what fails.',
      toolCalls: [{ name: 'bash', arguments: { command: DEMO_TEST_COMMAND } }],
    };
  }
  const failing = DEMO_FIXES.filter((fix) => firstRun.result?.includes(fix.failsWith));
  for (const fix of failing) {
    const read = done.some((e) => e.name === 'read' && e.args.path === fix.file);
    if (!read) {
      return {
        text: `The test for ${fix.file} fails. Reading it.`,
        toolCalls: [{ name: 'read', arguments: { path: fix.file } }],
      };
    }
    const edited = done.some((e) => e.name === 'edit' && e.args.path === fix.file);
    if (!edited) {
      return {
        text: `Fix: ${fix.idea}.`,
        toolCalls: [{ name: 'edit', arguments: { path: fix.file, old: fix.old, new: fix.new } }],
      };
    }
  }
  if (testRuns.length < 2) {
    return {
      text: 'Re-running the tests.',
      toolCalls: [{ name: 'bash', arguments: { command: DEMO_TEST_COMMAND } }],
    };
  }
  const finalRun = testRuns[testRuns.length - 1]?.result ?? '';
  const passed = /# fail 0\b/.test(finalRun);
  const fixed = failing.map((fix) => `- ${fix.file}: ${fix.idea}`).join('\n');
  return {
    text: passed
      ? `All tests pass now. I fixed ${failing.length} module(s):\n${fixed}`
      : `I fixed ${failing.length} module(s) but tests still fail:\n${finalRun.slice(-400)}`,
  };
};
