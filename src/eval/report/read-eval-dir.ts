/**
 * Reads an eval directory: DIR/arms.json and DIR/trials.jsonl, and DIR/tasks.json when present (the
 * tasks' tags, written by eval run). A missing or invalid arms file is an error (nothing can be said
 * without arms); bad trial lines are kept as issues beside the good ones; an unusable tasks.json is
 * a warning (the report goes on without tags).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import {
  type Arm,
  type LineIssue,
  type MatchedBudget,
  parseArmsFile,
  parseTrialLines,
  type TrialRecord,
} from '../trial-record.js';

export interface EvalDir {
  arms: Arm[];
  records: TrialRecord[];
  issues: LineIssue[];
  budget: MatchedBudget | null;
  /** Task id → tags, from DIR/tasks.json; null when absent or unusable. */
  tags: Record<string, string[]> | null;
  /** Problems with DIR/tasks.json. */
  warnings: string[];
}

const tasksFileSchema = z.object({
  v: z.literal(1),
  tasks: z.record(z.string(), z.object({ repo: z.string(), tags: z.array(z.string()) })),
});

function readTags(dir: string): { tags: Record<string, string[]> | null; warnings: string[] } {
  const text = readText(join(dir, 'tasks.json'));
  if (!text.ok) return { tags: null, warnings: [] }; // older eval directories have none
  let json: unknown;
  try {
    json = JSON.parse(text.text);
  } catch (e) {
    return {
      tags: null,
      warnings: [`tasks.json is not JSON (${(e as Error).message}): no per-tag breakdown`],
    };
  }
  const parsed = tasksFileSchema.safeParse(json);
  if (!parsed.success)
    return {
      tags: null,
      warnings: [`tasks.json: ${parsed.error.issues[0]?.message ?? 'invalid'}: no per-tag breakdown`],
    };
  const tags = Object.fromEntries(Object.entries(parsed.data.tasks).map(([id, t]) => [id, t.tags]));
  return { tags, warnings: [] };
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
  const { tags, warnings } = readTags(dir);
  return { ok: true, value: { arms: arms.arms, records, issues, budget: arms.budget, tags, warnings } };
}

/** "trials.jsonl line 7: score: …" — one line per issue, the first `max` of them. */
export function issueLines(issues: readonly LineIssue[], max = 20): string[] {
  const lines = issues.slice(0, max).map((i) => `trials.jsonl line ${i.line}: ${i.message}`);
  if (issues.length > max) lines.push(`… and ${issues.length - max} more bad lines`);
  return lines;
}
