import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AnchorRecord } from '../../../src/store/anchor/anchor-record.js';
import { trailOf } from '../../../src/store/anchor/anchor-record.js';
import type { WalkedEvent } from '../../../src/store/anchor/chain-read.js';
import { compareWithAnchors } from '../../../src/store/anchor/compare-anchors.js';

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A chain of `n` events; from `rewrittenFrom` on, every hash differs (as a rewritten suffix's do). */
function chain(n: number, rewrittenFrom = Number.POSITIVE_INFINITY): WalkedEvent[] {
  return Array.from({ length: n }, (_, i) => {
    const seq = i + 1;
    const hash = sha(`${seq}${seq >= rewrittenFrom ? 'forged' : ''}`);
    return { seq, kind: seq % 2 ? 'model.response' : 'tool.finished', hash, storedHash: hash };
  });
}

/** An anchor of the original chain at `lastSeq` (signatures are checked elsewhere). */
function anchorAt(lastSeq: number, withTrail = true): AnchorRecord {
  const original = chain(lastSeq);
  return {
    v: 1,
    runId: 'r',
    lastSeq,
    hash: original[lastSeq - 1]?.hash ?? '',
    anchoredAt: `t${lastSeq}`,
    trail: withTrail ? trailOf(original.map((e) => e.hash)) : null,
    keyId: 'k',
    sig: '',
  };
}

describe('the chain against its anchors', () => {
  it('matches an unchanged chain and counts the events after the anchor', () => {
    const verdict = compareWithAnchors(chain(12), [anchorAt(5), anchorAt(10)]);
    expect(verdict).toMatchObject({ ok: true, anchors: 2, uncovered: 2, firstDifference: null });
  });

  it('names the first rewritten event from the trail', () => {
    const verdict = compareWithAnchors(chain(10, 7), [anchorAt(10)]);
    expect(verdict.ok).toBe(false);
    expect(verdict.firstDifference).toEqual({ seq: 7, kind: 'model.response' });
  });

  it('names the first missing event of a cut chain', () => {
    const verdict = compareWithAnchors(chain(6), [anchorAt(10)]);
    expect(verdict.firstDifference).toEqual({ seq: 7, kind: null });
  });

  it('narrows to a range with earlier anchors when the anchors carry no trail', () => {
    const anchors = [anchorAt(3, false), anchorAt(6, false), anchorAt(9, false), anchorAt(12, false)];
    const verdict = compareWithAnchors(chain(12, 8), anchors);
    expect(verdict.ok).toBe(false);
    expect(verdict.firstDifference).toBeNull();
    expect(verdict.range).toEqual({ after: 6, upTo: 9 });
  });
});
