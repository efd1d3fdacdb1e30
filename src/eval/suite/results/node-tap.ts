/**
 * TAP as Node's test runner writes it (`node --test --test-reporter=tap`, TAP 13 with subtests
 * indented by four spaces): every `ok`/`not ok` line is a result, named by the `# Subtest:` lines above
 * it (a describe block's results come before its own line). YAML diagnostics are skipped whole, since
 * an error message or stack in them may hold a line that looks like a result. Any other TAP producer
 * that indents subtests the same way parses too.
 */
import { err, ok, type Result } from '../../../lang/result.js';
import { fullName, type TestResult } from './types.js';

const INDENT = 4;
const RESULT_LINE = /^( *)(not ok|ok)\b(?: +\d+)?(?: +-)?(?: +(.*))?$/;
const SUBTEST_LINE = /^( *)# Subtest: (.*)$/;
const PLAN_LINE = /^( *)1\.\.(\d+)/;
const DIRECTIVE = / +# *(SKIP|TODO)\b.*$/i;

export function parseNodeTap(text: string): Result<TestResult[]> {
  const lines = text.split(/\r?\n/);
  const results: TestResult[] = [];
  const stack: string[] = [];
  let yamlEnd: string | null = null;
  let topLevelResults = 0;
  let topLevelPlan: number | null = null;
  let sawTap = false;
  let afterResult = false;
  for (const line of lines) {
    if (yamlEnd !== null) {
      if (line === yamlEnd) yamlEnd = null;
      continue;
    }
    // A YAML block belongs to the result line just above it.
    const yamlStart = afterResult ? /^( *)---$/.exec(line) : null;
    afterResult = false;
    if (yamlStart) {
      yamlEnd = `${yamlStart[1]}...`;
      continue;
    }
    const subtest = SUBTEST_LINE.exec(line);
    if (subtest) {
      const depth = Math.floor((subtest[1] ?? '').length / INDENT);
      stack.length = depth;
      stack[depth] = unescapeTap(subtest[2] ?? '');
      sawTap = true;
      continue;
    }
    const result = RESULT_LINE.exec(line);
    if (result) {
      const depth = Math.floor((result[1] ?? '').length / INDENT);
      const rest = result[3] ?? '';
      const directive = DIRECTIVE.exec(rest);
      const name = unescapeTap(directive ? rest.slice(0, directive.index) : rest);
      const path = [...padded(stack, depth), name];
      stack.length = depth;
      const failed = result[2] === 'not ok';
      // A skipped or todo test did not show that the code works, whatever its ok says.
      const status = directive ? 'skip' : failed ? 'fail' : 'pass';
      results.push({ name: fullName(path), status, aliases: [] });
      if (depth === 0) topLevelResults++;
      sawTap = true;
      afterResult = true;
      continue;
    }
    const plan = PLAN_LINE.exec(line);
    if (plan) {
      if ((plan[1] ?? '').length === 0) topLevelPlan = Number(plan[2]);
      sawTap = true;
    }
  }
  if (!sawTap) return err('no TAP results in the output (is the reporter tap?)');
  if (topLevelPlan !== null && topLevelPlan !== topLevelResults)
    return err(`TAP plan 1..${topLevelPlan} but ${topLevelResults} top-level results (output cut short?)`);
  return ok(results);
}

/** The names of the enclosing subtests down to `depth` (empty where a producer gave none). */
function padded(stack: readonly string[], depth: number): string[] {
  return Array.from({ length: depth }, (_, i) => stack[i] ?? '');
}

/** Node escapes `\`, `#` and control characters in TAP names. */
function unescapeTap(name: string): string {
  const controls: Record<string, string> = { n: '\n', r: '\r', t: '\t', b: '\b', f: '\f', v: '\v' };
  return name.trim().replace(/\\(.)/g, (_, c: string) => controls[c] ?? c);
}
