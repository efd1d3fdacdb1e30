/**
 * Anchor files: JSON lines, appended to and never rewritten. A run's default file is
 * `$COLONY_HOME/anchors/<run-id>.jsonl`; `colony anchor --out FILE` appends to another.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { err, ok, type Result } from '../../lang/result.js';
import { type AnchorRecord, parseAnchorLine } from './anchor-record.js';

export function defaultAnchorPath(home: string, runId: string): string {
  return join(home, 'anchors', `${runId}.jsonl`);
}

/** Appends one record as one line (one write, O_APPEND). */
export async function appendAnchor(path: string, record: AnchorRecord): Promise<Result<void>> {
  try {
    await mkdir(dirname(path), { recursive: true });
    await appendFile(path, `${JSON.stringify(record)}\n`, { flag: 'a', mode: 0o644 });
    return ok(undefined);
  } catch (e) {
    return err(`cannot write the anchor to ${path}: ${(e as Error).message}`);
  }
}

/** Every record of the file in order; a line that is not a record is an error naming it. */
export async function readAnchors(
  path: string,
): Promise<Result<AnchorRecord[], { absent: boolean; message: string }>> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const absent = (e as NodeJS.ErrnoException).code === 'ENOENT';
    return err({
      absent,
      message: absent ? `no anchor file ${path}` : `cannot read ${path}: ${(e as Error).message}`,
    });
  }
  const records: AnchorRecord[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    const parsed = parseAnchorLine(line);
    if (!parsed.ok) return err({ absent: false, message: `${path} line ${i + 1}: ${parsed.error}` });
    records.push(parsed.value);
  }
  if (records.length === 0) return err({ absent: false, message: `${path} holds no anchor` });
  return ok(records);
}
