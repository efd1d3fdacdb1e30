/**
 * Structured outputs: the task tells the agent the JSON Schema of its answer; the answer's JSON is
 * found (bare, fenced or embedded in prose) and validated with zod. An invalid answer gets one repair
 * attempt whose task says exactly what was wrong.
 */
import { z } from 'zod';

export type ParsedOutput = { ok: true; value: unknown } | { ok: false; problem: string };

export function outputInstruction(schema: z.ZodType): string {
  return (
    '\n\n# Output\nFinish with a final answer that is only a JSON value (no prose, no code fence) valid ' +
    `against this JSON Schema:\n${schemaText(schema)}`
  );
}

export function schemaText(schema: z.ZodType): string {
  try {
    return JSON.stringify(z.toJSONSchema(schema, { unrepresentable: 'any' }));
  } catch {
    return '(schema not representable as JSON Schema; follow the task)';
  }
}

export function parseOutput(text: string, schema: z.ZodType): ParsedOutput {
  const json = extractJson(text);
  if (json === undefined) return { ok: false, problem: 'the answer contains no JSON value' };
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issues = parsed.error.issues
    .slice(0, 10)
    .map((issue) => `- ${issue.path.length > 0 ? issue.path.join('.') : '(root)'}: ${issue.message}`);
  return { ok: false, problem: `the JSON does not match the schema:\n${issues.join('\n')}` };
}

/** The first JSON value in the text: the whole text, a fenced block, or the outermost {...} / [...]. */
export function extractJson(text: string): unknown {
  const candidates = [text.trim()];
  const fence = /```(?:json)?\s*([\s\S]*?)```/.exec(text);
  if (fence?.[1]) candidates.push(fence[1].trim());
  for (const [open, close] of [
    ['{', '}'],
    ['[', ']'],
  ] as const) {
    const start = text.indexOf(open);
    const end = text.lastIndexOf(close);
    if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1));
  }
  for (const candidate of candidates) {
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

export function repairTask(task: string, answer: string, problem: string): string {
  return (
    `${task}\n\n# Your previous answer was not accepted\nIt was:\n${clip(answer, 4000)}\n\n` +
    `Problem: ${problem}\n\nAnswer again: only the corrected JSON value, nothing else.`
  );
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
