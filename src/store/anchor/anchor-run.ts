/**
 * `colony anchor RUN` and the anchor at a run's end: the run's chain, recomputed in this process and
 * found consistent, has its head signed with the audit key and appended to an anchor file. A chain
 * that is already broken is not anchored (that would vouch for the break).
 */
import { err, ok, type Result } from '../../lang/result.js';
import type { Store } from '../store.js';
import { appendAnchor, defaultAnchorPath } from './anchor-file.js';
import { type AnchorRecord, signAnchor, trailOf } from './anchor-record.js';
import { auditKeyPath, loadOrCreateAuditKey } from './audit-key.js';
import { firstInconsistency, walkChain } from './chain-read.js';

export interface AnchorOptions {
  /** The anchor file (default: `$COLONY_HOME/anchors/<run-id>.jsonl`). */
  out?: string;
  env?: NodeJS.ProcessEnv;
}

export interface Anchored {
  path: string;
  keyPath: string;
  record: AnchorRecord;
}

export async function anchorRun(
  store: Store,
  runId: string,
  options: AnchorOptions = {},
): Promise<Result<Anchored>> {
  const keyPath = auditKeyPath(store.home, options.env);
  const key = await loadOrCreateAuditKey(keyPath);
  if (!key.ok) return key;
  const checked = await store.log.verify(runId);
  if (checked.firstBreak)
    return err(
      `run ${runId}: its hash chain is already broken at seq ${checked.firstBreak.seq}; not anchoring it`,
    );
  const chain = await walkChain(store.pool, runId);
  const head = chain[chain.length - 1];
  if (!head) return err(`run ${runId} has no events to anchor`);
  const inconsistent = firstInconsistency(chain);
  if (inconsistent)
    return err(
      `run ${runId}: event seq ${inconsistent.seq} (${inconsistent.kind}): ${inconsistent.reason}; not anchoring it`,
    );
  const record = signAnchor(
    {
      runId,
      lastSeq: head.seq,
      hash: head.hash,
      anchoredAt: new Date().toISOString(),
      trail: trailOf(chain.map((event) => event.hash)),
    },
    key.value,
  );
  if (!record.ok) return record;
  const path = options.out ?? defaultAnchorPath(store.home, runId);
  const written = await appendAnchor(path, record.value);
  if (!written.ok) return written;
  return ok({ path, keyPath, record: record.value });
}
