export { appendAnchor, defaultAnchorPath, readAnchors } from './anchor-file.js';
export {
  type AnchorRecord,
  parseAnchorLine,
  signAnchor,
  signatureProblem,
  TRAIL_MAX_EVENTS,
  trailOf,
} from './anchor-record.js';
export { type Anchored, type AnchorOptions, anchorRun } from './anchor-run.js';
export {
  type AuditKey,
  auditKeyPath,
  loadAuditKey,
  loadOrCreateAuditKey,
  readVerifyingKey,
} from './audit-key.js';
export { eventHash, GENESIS_HASH } from './chain-hash.js';
export { type WalkedEvent, walkChain } from './chain-read.js';
export { type AnchoredCheck, type CheckOptions, checkRunAnchors } from './check-anchors.js';
export { type AnchorVerdict, compareWithAnchors } from './compare-anchors.js';
export { anchorFinishedRun } from './run-end.js';
