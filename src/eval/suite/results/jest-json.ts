/**
 * Jest's `--json` report (vitest's `--reporter=json` writes the same shape): one result per assertion
 * result, named by its describe titles and its title; jest's own `fullName` is an alias. A test file
 * that failed to run at all (a syntax error) is a failing result named by its path.
 */
import { z } from 'zod';
import { err, ok, type Result } from '../../../lang/result.js';
import { fullName, type TestResult, type TestStatus } from './types.js';

const reportSchema = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      status: z.string().optional(),
      assertionResults: z.array(
        z.object({
          ancestorTitles: z.array(z.string()),
          title: z.string(),
          fullName: z.string().optional(),
          status: z.string(),
        }),
      ),
    }),
  ),
});

const STATUS: Record<string, TestStatus> = { passed: 'pass', failed: 'fail' };

export function parseJestJson(text: string): Result<TestResult[]> {
  const json = parseLenient(text);
  if (json === undefined) return err('no JSON report in the output (is --json on?)');
  const report = reportSchema.safeParse(json);
  if (!report.success) {
    const issue = report.error.issues[0];
    return err(`not a jest JSON report: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''}`);
  }
  const results: TestResult[] = [];
  for (const file of report.data.testResults) {
    if (file.assertionResults.length === 0 && file.status === 'failed')
      results.push({ name: file.name, status: 'fail', aliases: [] });
    for (const test of file.assertionResults) {
      const name = fullName([...test.ancestorTitles, test.title]);
      const aliases = test.fullName && test.fullName !== name ? [test.fullName] : [];
      // pending, skipped, todo, disabled: not shown to work.
      results.push({ name, status: STATUS[test.status] ?? 'skip', aliases });
    }
  }
  return ok(results);
}

/** The report, also when the runner printed lines before it (the report starts a line with `{`). */
function parseLenient(text: string): unknown {
  const start = text.search(/^\{/m);
  const candidates = start > 0 ? [text, text.slice(start)] : [text];
  for (const candidate of candidates) {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // Try the next.
    }
  }
  return undefined;
}
