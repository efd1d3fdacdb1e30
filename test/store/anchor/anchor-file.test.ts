import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendAnchor, readAnchors } from '../../../src/store/anchor/anchor-file.js';
import { type AnchorRecord, signAnchor } from '../../../src/store/anchor/anchor-record.js';
import { loadOrCreateAuditKey } from '../../../src/store/anchor/audit-key.js';

async function records(n: number): Promise<AnchorRecord[]> {
  const key = await loadOrCreateAuditKey(join(mkdtempSync(join(tmpdir(), 'colony-anchor-')), 'audit-key'));
  if (!key.ok) throw new Error(key.error);
  return Array.from({ length: n }, (_, i) => {
    const signed = signAnchor(
      {
        runId: 'r-1',
        lastSeq: i + 1,
        hash: String(i).repeat(64).slice(0, 64),
        anchoredAt: new Date(0).toISOString(),
        trail: null,
      },
      key.value,
    );
    if (!signed.ok) throw new Error(signed.error);
    return signed.value;
  });
}

describe('anchor files', () => {
  it('are created whole and appended to, with nothing left aside', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'colony-anchors-'));
    const path = join(dir, 'anchors', 'r-1.jsonl');
    const [first, second] = await records(2);
    if (!first || !second) throw new Error('two records');
    expect(await appendAnchor(path, first)).toEqual({ ok: true, value: undefined });
    expect(await appendAnchor(path, second)).toEqual({ ok: true, value: undefined });
    expect(readdirSync(join(dir, 'anchors'))).toEqual(['r-1.jsonl']);
    const read = await readAnchors(path);
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value.map((r) => r.lastSeq)).toEqual([1, 2]);
  });

  it('read a last line still being written as not there yet, and say so when it is the only one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'colony-anchors-'));
    const [first, second] = await records(2);
    const whole = `${JSON.stringify(first)}\n`;
    const cut = JSON.stringify(second).slice(0, 40);
    const path = join(dir, 'a.jsonl');
    writeFileSync(path, whole + cut);
    const read = await readAnchors(path);
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value.map((r) => r.lastSeq)).toEqual([1]);

    writeFileSync(path, cut);
    const alone = await readAnchors(path);
    expect(alone.ok ? 'read' : alone.error.message).toMatch(
      /holds no whole anchor: its one line is cut short/,
    );

    // A whole record without its newline (a file written by hand) is still read.
    writeFileSync(path, whole + JSON.stringify(second));
    const unended = await readAnchors(path);
    expect(unended.ok && unended.value.map((r) => r.lastSeq)).toEqual([1, 2]);

    // A bad line in the middle is an error that names it.
    writeFileSync(path, `not json\n${whole}`);
    const bad = await readAnchors(path);
    expect(bad.ok ? 'read' : bad.error.message).toMatch(/line 1:/);
    expect(readFileSync(path, 'utf8')).toContain('not json');
  });
});
