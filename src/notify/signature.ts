/**
 * The webhook's signature (docs/notify.md): HMAC-SHA256 with the shared secret over
 * `<timestamp>.<raw body>`, sent as `X-Colony-Signature: sha256=<hex>` beside
 * `X-Colony-Timestamp: <unix seconds>`. The timestamp is inside the signed text, so a receiver that
 * rejects old timestamps (say, over 5 minutes) rejects replays; each try of a delivery is signed
 * afresh.
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-colony-signature';
export const TIMESTAMP_HEADER = 'x-colony-timestamp';

export function signBody(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}
