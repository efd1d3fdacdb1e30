/**
 * One anchor: a run's chain head (run id, last seq, hash, time) signed with the audit key, plus the
 * trail — the first 8 hex digits of every event's hash from seq 1 to the head — so a check can name
 * the first event that differs. Runs longer than TRAIL_MAX_EVENTS get no trail (the line would pass
 * 2 MB); earlier anchors then narrow the difference to a range. One JSON line per anchor.
 */
import { sign, verify } from 'node:crypto';
import { z } from 'zod';
import { err, ok, type Result } from '../../lang/result.js';
import type { AuditKey } from './audit-key.js';

export const TRAIL_DIGITS = 8;
export const TRAIL_MAX_EVENTS = 250_000;

export interface AnchorHead {
  runId: string;
  lastSeq: number;
  hash: string;
  /** ISO time the anchor was made. */
  anchoredAt: string;
  /** TRAIL_DIGITS hex digits per event, seq 1 first; null when the run is too long for one. */
  trail: string | null;
}

export interface AnchorRecord extends AnchorHead {
  v: 1;
  keyId: string;
  /** Ed25519 signature (base64) over signedText(). */
  sig: string;
}

const recordSchema = z.object({
  v: z.literal(1),
  runId: z.string().min(1),
  lastSeq: z.number().int().nonnegative(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  anchoredAt: z.string(),
  trail: z
    .string()
    .regex(/^[0-9a-f]*$/)
    .nullable(),
  keyId: z.string(),
  sig: z.string(),
});

/** The exact bytes signed: a JSON array, so field order can never be in doubt. */
function signedText(head: AnchorHead, keyId: string): Buffer {
  const fields = [
    'colony-anchor-v1',
    head.runId,
    head.lastSeq,
    head.hash,
    head.anchoredAt,
    keyId,
    head.trail,
  ];
  return Buffer.from(JSON.stringify(fields), 'utf8');
}

export function signAnchor(head: AnchorHead, key: AuditKey): Result<AnchorRecord> {
  if (!key.privateKey) return err(`${key.path} holds no private key: it can check anchors, not sign them`);
  const sig = sign(null, signedText(head, key.keyId), key.privateKey).toString('base64');
  return ok({ v: 1, ...head, keyId: key.keyId, sig });
}

/** A line of an anchor file, parsed (not yet checked against a key). */
export function parseAnchorLine(line: string): Result<AnchorRecord> {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return err('not JSON');
  }
  const parsed = recordSchema.safeParse(json);
  return parsed.success
    ? ok(parsed.data)
    : err(`not an anchor record (${parsed.error.issues[0]?.message ?? 'invalid'})`);
}

/** Null when the record was signed by `key` and is unchanged since; else why not. */
export function signatureProblem(record: AnchorRecord, key: AuditKey): string | null {
  if (record.keyId !== key.keyId)
    return `signed by key ${record.keyId}, not by the audit key ${key.keyId} (${key.path})`;
  const signed = verify(
    null,
    signedText(record, record.keyId),
    key.publicKey,
    Buffer.from(record.sig, 'base64'),
  );
  if (!signed) return 'its signature does not match its content: the anchor was altered';
  if (record.trail !== null && record.trail.length !== record.lastSeq * TRAIL_DIGITS)
    return 'its trail does not cover its events';
  return null;
}

/** The trail of a chain's hashes (seq order from 1), or null past TRAIL_MAX_EVENTS. */
export function trailOf(hashes: readonly string[], maxEvents = TRAIL_MAX_EVENTS): string | null {
  if (hashes.length > maxEvents) return null;
  return hashes.map((hash) => hash.slice(0, TRAIL_DIGITS)).join('');
}
