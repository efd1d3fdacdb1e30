/**
 * The per-run secret agent tokens are signed with: 32 random bytes, kept by the process that owns
 * the run (never in an agent's environment or the event log). Replacing it revokes every token of
 * the run at once: tokens signed with the old secret fail verification as `bad_signature`.
 */
import { randomBytes } from 'node:crypto';

export const RUN_SECRET_BYTES = 32;

export function createRunSecret(): Buffer {
  return randomBytes(RUN_SECRET_BYTES);
}
