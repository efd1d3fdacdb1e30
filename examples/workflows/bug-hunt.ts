/**
 * Bug hunt: a planner splits the repository's sources into slices; read-only hunters search every
 * slice in parallel and report bugs as JSON; the reports are de-duplicated (same file and line);
 * then parallel coder agents fix one bug each in their own worktrees and land through the integration
 * queue (each merge checked with --merge-verify / --verify); finally an integration sync point runs
 * the test command on hub main.
 *
 *   colony workflow examples/workflows/bug-hunt.ts --repo PATH --verify "npm test" \
 *     [--merge-verify CMD] [--arg slices=3] [--arg test="npm test"] [--arg fixers=4]
 *
 * The file imports only types: the runtime passes `w` in (w.z is zod).
 */
import type { Workflow } from '../../src/workflow/types.js';

export default async function bugHunt(w: Workflow) {
  const { z } = w;
  const sliceCount = Number(w.args.slices ?? '3');
  const Bug = z.object({
    file: z.string().min(1),
    line: z.number().int().min(1),
    title: z.string().min(1),
    evidence: z.string().min(1).describe('the faulty code, quoted'),
  });

  const plan = await w.stage('plan', () =>
    w.agent({ profile: 'explore', name: 'planner' }).run(
      `Split the source files of this repository into ${sliceCount} slices of about equal size for bug hunters ` +
        '(paths from the repository root; leave out tests, fixtures and generated files).',
      { output: z.object({ slices: z.array(z.array(z.string().min(1)).min(1)).min(1) }), retries: 1 },
    ),
  );
  if (!plan.ok) throw new Error(`could not split the repository: ${plan.error.message}`);

  const reports = await w.stage('hunt', () =>
    w.map(plan.value.slices, (files) =>
      w.agent({ profile: 'explore', name: 'hunter' }).run(
        `Find the bugs in these files: ${files.join(', ')}\n` +
          'Read them and the tests that cover them. Report each real bug once: file, line, a one-line title and the ' +
          'faulty code as evidence. Report an empty list if you find none.',
        { output: z.object({ bugs: z.array(Bug) }), retries: 1, timeout: 15 * 60_000 },
      ),
    ),
  );
  const reported = reports.flatMap((r) => (r.ok ? r.value.bugs : []));
  const bugs = w.dedupe(reported, (b) => `${b.file.replace(/^\.\//, '')}:${b.line}`);

  const fixes = await w.stage('fix', () =>
    w.map(
      bugs,
      (bug) =>
        w.agent({ profile: 'coder', name: 'fixer' }).run(
          `Fix this bug in ${bug.file} (line ${bug.line}): ${bug.title}\nEvidence: ${bug.evidence}\n` +
            'Make the smallest change that fixes it, run the tests that cover it, and do not change the tests. ' +
            'Your work is committed and merged for you when you finish.',
          // The key de-duplicates across slices and names the step after the bug, not its position.
          { key: `fix:${bug.file}:${bug.line}`, retries: 1, priority: 1 },
        ),
      { concurrency: Number(w.args.fixers ?? '4') },
    ),
  );

  const integration = await w.sync('integration', w.args.test ?? 'npm test');
  return {
    slices: plan.value.slices,
    reported: reported.length,
    bugs: bugs.map((b, i) => ({ ...b, fixed: fixes[i]?.ok ?? false, error: fixes[i]?.ok ? undefined : fixes[i]?.error.message })),
    integration: { command: integration.command, passed: integration.passed },
  };
}
