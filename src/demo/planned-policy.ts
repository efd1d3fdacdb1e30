/**
 * The scripted model of `colony demo planned` (examples/demo-repo, `--topology planned`): the lead's
 * one decision is a program (PLANNED_DEMO_PROGRAM) passed to run_workflow — a read-only review mapped
 * over the repository's folders, then one writer per finding, each landing through the integration
 * queue, then the tests on hub main. Reviewers list their folder, read its files and answer JSON
 * findings with the real line numbers; writers read, edit, run the module's test and answer. Only the
 * decisions are canned: the reads, edits, merges and test runs are real.
 */
import type { ScriptedPolicy, ScriptedTurn } from '../model/providers/scripted.js';
import type { ModelRequest } from '../model/types.js';
import { toolCall as call, toolExchanges as exchanges, taskText } from './policy-helpers.js';
import { DEMO_FIXES } from './solo-policy.js';

export const PLANNED_DEMO_FOLDERS = ['src', 'test'];

/** The program the scripted lead writes (the body of `async function program(w)`). */
export const PLANNED_DEMO_PROGRAM = [
  `const folders = ${JSON.stringify(PLANNED_DEMO_FOLDERS)};`,
  "const reviews = await w.stage('review', () =>",
  '  w.map(folders, (folder) =>',
  "    w.agent({ profile: 'reviewer', name: 'review' }).run(",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the program's own template literal
  '      `Review the files under ${folder}/ for bugs. Answer JSON only: {"findings": [{"file": string, "line": number, "bug": string}]}`,',
  '    ),',
  '  ),',
  ');',
  'type Finding = { file: string; line: number; bug: string };',
  'const findings = w.dedupe(',
  '  reviews.flatMap((r) => (r.ok ? (JSON.parse(r.value) as { findings: Finding[] }).findings : [])),',
  '  (f) => f.file,',
  ');',
  "const fixes = await w.stage('fix', () =>",
  '  w.map(findings, (f) =>',
  "    w.agent({ profile: 'coder', name: 'fix' }).run(",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the program's own template literal
  '      `Fix this bug in ${f.file} (line ${f.line}): ${f.bug}. Run its test; do not change the tests.`,',
  '    ),',
  '  ),',
  ');',
  "const tests = await w.sync('integration', 'node --test test/');",
  'return {',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the program's own template literal
  '  findings: findings.map((f) => `${f.file}:${f.line} ${f.bug}`),',
  '  landed: fixes.filter((f) => f.ok).length,',
  '  failed: fixes.filter((f) => !f.ok).map((f) => (f.ok ? "" : f.error.message)),',
  '  testsPass: tests.passed,',
  '};',
].join('\n');

export const plannedDemoPolicy: ScriptedPolicy = (request): ScriptedTurn => {
  if (request.system.startsWith('You are the lead')) return leadTurn(request);
  const task = taskText(request.messages);
  const done = exchanges(request.messages);
  const review = /^Review the files under (\S+)\/ for bugs/.exec(task)?.[1];
  if (review) {
    const listing = done.find((e) => e.name === 'ls');
    if (!listing) return call(`Listing ${review}/.`, 'ls', { path: review });
    const files = listing.result
      .split('\n')
      .map((line) => line.trim())
      .filter((name) => name.endsWith('.js') && !name.endsWith('.test.js'))
      .map((name) => (name.startsWith(`${review}/`) ? name : `${review}/${name}`));
    const unread = files.find((f) => !done.some((e) => e.name === 'read' && e.path === f));
    if (unread) return call(`Reading ${unread}.`, 'read', { path: unread });
    const findings = DEMO_FIXES.flatMap((fix) => {
      const read = done.find((e) => e.name === 'read' && e.path === fix.file);
      if (!read) return [];
      return [{ file: fix.file, line: lineOf(read.result, fix.old), bug: fix.bug }];
    });
    return { text: JSON.stringify({ findings }) };
  }
  const fixing = /^Fix this bug in (\S+) \(line \d+\)/.exec(task)?.[1];
  const fix = DEMO_FIXES.find((f) => f.file === fixing);
  if (fix) {
    if (!done.some((e) => e.name === 'read')) return call(`Reading ${fix.file}.`, 'read', { path: fix.file });
    if (!done.some((e) => e.name === 'edit'))
      return call(`Fix: ${fix.idea}.`, 'edit', { path: fix.file, old: fix.old, new: fix.new });
    const test = `node --test ${fix.file.replace(/^src\/(.+)\.js$/, 'test/$1.test.js')}`;
    if (!done.some((e) => e.name === 'bash')) return call('Running its test.', 'bash', { command: test });
    return { text: `Fixed ${fix.file}: ${fix.idea}.` };
  }
  return { text: 'Nothing to do.' };
};

function leadTurn(request: ModelRequest): ScriptedTurn {
  const last = request.messages.at(-1);
  if (last?.role !== 'tool')
    return {
      text: 'I will review each folder in parallel, then fix what the review finds.',
      toolCalls: [{ name: 'run_workflow', arguments: { program: PLANNED_DEMO_PROGRAM } }],
    };
  return { text: `The program finished:\n${last.content}` };
}

/** The 1-based line of `code`'s first line in a `read` result (lines are "N\ttext"). */
function lineOf(readResult: string, code: string): number {
  const first = code.split('\n')[0]?.trim() ?? '';
  for (const line of readResult.split('\n')) {
    const m = /^\s*(\d+)\t(.*)$/.exec(line);
    if (m?.[2]?.includes(first)) return Number(m[1]);
  }
  return 1;
}
