import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type AnchorRecord,
  parseAnchorLine,
  signAnchor,
  signatureProblem,
  trailOf,
} from '../../../src/store/anchor/anchor-record.js';
import { type AuditKey, loadOrCreateAuditKey } from '../../../src/store/anchor/audit-key.js';

async function newKey(): Promise<AuditKey> {
  const key = await loadOrCreateAuditKey(join(mkdtempSync(join(tmpdir(), 'colony-anchor-')), 'audit-key'));
  if (!key.ok) throw new Error(key.error);
  return key.value;
}

const hashes = ['a'.repeat(64), 'b'.repeat(64), 'c'.repeat(64)];

function anchor(key: AuditKey): AnchorRecord {
  const signed = signAnchor(
    {
      runId: 'r-1',
      lastSeq: 3,
      hash: 'c'.repeat(64),
      anchoredAt: '2026-01-01T00:00:00.000Z',
      trail: trailOf(hashes),
    },
    key,
  );
  if (!signed.ok) throw new Error(signed.error);
  return signed.value;
}

describe('anchor records', () => {
  it('round-trip through one JSON line and verify with the key that signed them', async () => {
    const key = await newKey();
    const record = anchor(key);
    expect(record.trail).toBe('aaaaaaaabbbbbbbbcccccccc');
    const parsed = parseAnchorLine(JSON.stringify(record));
    if (!parsed.ok) throw new Error(parsed.error);
    expect(signatureProblem(parsed.value, key)).toBeNull();
  });

  it('refuses an altered field, an altered trail, and another key', async () => {
    const key = await newKey();
    const record = anchor(key);
    expect(signatureProblem({ ...record, lastSeq: 2 }, key)).toMatch(/altered/);
    expect(signatureProblem({ ...record, hash: 'd'.repeat(64) }, key)).toMatch(/altered/);
    expect(signatureProblem({ ...record, trail: `dddddddd${record.trail?.slice(8)}` }, key)).toMatch(
      /altered/,
    );
    const other = await newKey();
    expect(signatureProblem(record, other)).toMatch(/not by the audit key/);
    // Re-signed by another key but claiming the audit key's id: the signature does not match.
    expect(signatureProblem({ ...anchor(other), keyId: key.keyId }, key)).toMatch(/altered/);
  });

  it('gives no trail past its limit, and parses only anchor records', () => {
    expect(trailOf(hashes, 2)).toBeNull();
    expect(parseAnchorLine('{').ok).toBe(false);
    expect(parseAnchorLine('{"v":1}').ok).toBe(false);
  });
});
