/**
 * Anchor files: JSON lines, appended to and never rewritten. A run's default file is
 * `$COLONY_HOME/anchors/<run-id>.jsonl`; `colony anchor --out FILE` appends to another.
 *
 * A reader may look while a run's process writes its end anchor (`colony verify` right after
 * `run.finished`): a new file appears whole (written aside, then linked into place), and a last line
 * still being appended is not read as a record.
 */
import { randomBytes } from 'node:crypto';
import { appendFile, link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { err, ok, type Result } from '../../lang/result.js';
import { type AnchorRecord, parseAnchorLine } from './anchor-record.js';

export function defaultAnchorPath(home: string, runId: string): string {
  return join(home, 'anchors', `${runId}.jsonl`);
}

/** Appends one record as one line: a new file is linked into place whole, an existing one gets one O_APPEND write. */
export async function appendAnchor(path: string, record: AnchorRecord): Promise<Result<void>> {
  const line = `${JSON.stringify(record)}\n`;
  try {
    await mkdir(dirname(path), { recursive: true });
    if (!(await createWhole(path, line))) await appendFile(path, line, { flag: 'a', mode: 0o644 });
    return ok(undefined);
  } catch (e) {
    return err(`cannot write the anchor to ${path}: ${(e as Error).message}`);
  }
}

/** Creates the file holding `text`, never seen empty; false when it exists already. */
async function createWhole(path: string, text: string): Promise<boolean> {
  const aside = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.new`;
  await writeFile(aside, text, { flag: 'wx', mode: 0o644 });
  try {
    await link(aside, path);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    await unlink(aside).catch(() => {});
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
  const lines = text.split('\n');
  // After the last newline: a whole record, or an append under way (or cut by a crash) not read yet.
  const tail = lines.pop() ?? '';
  const cut = tail.trim() !== '' && !parseAnchorLine(tail).ok;
  if (!cut) lines.push(tail);
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const parsed = parseAnchorLine(line);
    if (!parsed.ok) return err({ absent: false, message: `${path} line ${i + 1}: ${parsed.error}` });
    records.push(parsed.value);
  }
  if (records.length === 0)
    return err({
      absent: false,
      message: cut
        ? `${path} holds no whole anchor: its one line is cut short (a write under way, or cut by a crash); write one with colony anchor RUN`
        : `${path} holds no anchor`,
    });
  return ok(records);
}
