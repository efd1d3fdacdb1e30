/**
 * `colony verify RUN` against anchors: every record of the anchor file must carry a valid signature
 * of the audit key (or of `--public-key`) and name this run; then the chain, recomputed in this
 * process, is compared with them (compare-anchors.ts).
 */
import { err, ok, type Result } from '../../lang/result.js';
import type { Store } from '../store.js';
import { defaultAnchorPath, readAnchors } from './anchor-file.js';
import { signatureProblem } from './anchor-record.js';
import { type AuditKey, auditKeyPath, loadAuditKey, readVerifyingKey } from './audit-key.js';
import { firstInconsistency, walkChain } from './chain-read.js';
import { type AnchorVerdict, compareWithAnchors } from './compare-anchors.js';

export interface CheckOptions {
  /** The anchor file; default `$COLONY_HOME/anchors/<run-id>.jsonl`, skipped when absent. */
  anchorPath?: string;
  /** A PEM public (or private) key to check signatures with instead of the audit key. */
  publicKeyPath?: string;
  env?: NodeJS.ProcessEnv;
}

export type AnchoredCheck =
  | { checked: false; path: string }
  | {
      checked: true;
      path: string;
      keyId: string;
      verdict: AnchorVerdict;
      /** A stored hash that is not its row's recomputed hash (the database's hash function lied). */
      inconsistency: { seq: number; kind: string; reason: string } | null;
    };

async function verifyingKey(store: Store, options: CheckOptions): Promise<Result<AuditKey>> {
  if (options.publicKeyPath) return readVerifyingKey(options.publicKeyPath);
  const path = auditKeyPath(store.home, options.env);
  const key = await loadAuditKey(path);
  if (key.ok) return key;
  return err(
    key.error.absent
      ? `no audit key at ${path} to check the anchors with; name the key that signed them with --public-key FILE (or COLONY_AUDIT_KEY)`
      : key.error.message,
  );
}

export async function checkRunAnchors(
  store: Store,
  runId: string,
  options: CheckOptions = {},
): Promise<Result<AnchoredCheck>> {
  const path = options.anchorPath ?? defaultAnchorPath(store.home, runId);
  const anchors = await readAnchors(path);
  if (!anchors.ok) {
    if (anchors.error.absent && !options.anchorPath) return ok({ checked: false, path });
    return err(anchors.error.message);
  }
  const key = await verifyingKey(store, options);
  if (!key.ok) return key;
  for (const [i, record] of anchors.value.entries()) {
    const where = `anchor ${i + 1} of ${path}`;
    const problem = signatureProblem(record, key.value);
    if (problem) return err(`${where} is refused: ${problem}`);
    if (record.runId !== runId) return err(`${where} is for run ${record.runId}, not ${runId}`);
  }
  const chain = await walkChain(store.pool, runId);
  return ok({
    checked: true,
    path,
    keyId: key.value.keyId,
    verdict: compareWithAnchors(chain, anchors.value),
    inconsistency: firstInconsistency(chain),
  });
}
