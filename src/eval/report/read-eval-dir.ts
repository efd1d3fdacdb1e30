/**
 * Reads an eval directory: DIR/arms.json and DIR/trials.jsonl. A missing or invalid arms file is an
 * error (nothing can be said without arms); bad trial lines are kept as issues beside the good ones.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type Arm,
  type LineIssue,
  parseArmsFile,
  parseTrialLines,
  type TrialRecord,
} from '../trial-record.js';

export interface EvalDir {
  arms: Arm[];
  records: TrialRecord[];
  issues: LineIssue[];
}

function readText(path: string): { ok: true; text: string } | { ok: false; error: string } {
  try {
    return { ok: true, text: readFileSync(path, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      ok: false,
      error: code === 'ENOENT' ? `${path} does not exist` : `cannot read ${path}: ${(err as Error).message}`,
    };
  }
}

export function readEvalDir(dir: string): { ok: true; value: EvalDir } | { ok: false; error: string } {
  const armsText = readText(join(dir, 'arms.json'));
  if (!armsText.ok) return armsText;
  const arms = parseArmsFile(armsText.text);
  if (!arms.ok) return { ok: false, error: `${join(dir, 'arms.json')}: ${arms.error}` };
  const trialsText = readText(join(dir, 'trials.jsonl'));
  if (!trialsText.ok) return trialsText;
  const { records, issues } = parseTrialLines(trialsText.text);
  return { ok: true, value: { arms: arms.arms, records, issues } };
}

/** "trials.jsonl line 7: score: …" — one line per issue, the first `max` of them. */
export function issueLines(issues: readonly LineIssue[], max = 20): string[] {
  const lines = issues.slice(0, max).map((i) => `trials.jsonl line ${i.line}: ${i.message}`);
  if (issues.length > max) lines.push(`… and ${issues.length - max} more bad lines`);
  return lines;
}
