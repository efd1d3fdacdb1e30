/**
 * The start of a receive-pack request in git's pkt-line framing (gitprotocol-pack, "Reference Update
 * Request"): optional `shallow <id>` lines, then commands `old-id new-id refname`, the first with
 * its capabilities after a NUL, then a flush-pkt (`0000`); push options and the pack follow. And the
 * report-status answer Colony sends itself when it refuses a push.
 */
import type { RefUpdate } from './refs.js';

export interface CommandList {
  updates: RefUpdate[];
  capabilities: string[];
  /** Bytes up to and including the flush-pkt that ends the commands. */
  length: number;
}

export type CommandListParse =
  | { kind: 'incomplete' }
  | { kind: 'invalid'; error: string }
  | ({ kind: 'complete' } & CommandList);

const OBJECT_ID = '(?:[0-9a-f]{40}|[0-9a-f]{64})';
const COMMAND = new RegExp(`^(${OBJECT_ID}) (${OBJECT_ID}) (\\S+)$`);
const SHALLOW = new RegExp(`^shallow ${OBJECT_ID}$`);
const MAX_PKT = 65520;

/** Parses what has arrived so far; `incomplete` until the flush-pkt after the commands is in. */
export function parseCommandList(data: Buffer): CommandListParse {
  const updates: RefUpdate[] = [];
  let capabilities: string[] = [];
  let offset = 0;
  for (;;) {
    if (data.length < offset + 4) return { kind: 'incomplete' };
    const header = data.toString('latin1', offset, offset + 4);
    if (!/^[0-9a-f]{4}$/.test(header)) return { kind: 'invalid', error: 'not a pkt-line stream' };
    const size = Number.parseInt(header, 16);
    // No updates at all is git's probe before a large push (a lone flush-pkt): nothing to refuse.
    if (size === 0) return { kind: 'complete', updates, capabilities, length: offset + 4 };
    if (size < 4 || size > MAX_PKT) return { kind: 'invalid', error: `bad pkt-line length ${size}` };
    if (data.length < offset + size) return { kind: 'incomplete' };
    let line = data.toString('utf8', offset + 4, offset + size);
    offset += size;
    if (line.endsWith('\n')) line = line.slice(0, -1);
    if (updates.length === 0 && SHALLOW.test(line)) continue;
    const nul = line.indexOf('\0');
    if (nul >= 0) {
      if (updates.length > 0) return { kind: 'invalid', error: 'capabilities after the first command' };
      capabilities = line
        .slice(nul + 1)
        .split(' ')
        .filter((c) => c !== '');
      line = line.slice(0, nul);
    }
    const match = COMMAND.exec(line);
    // Push certificates (`push-cert`) are not offered by the hub, so they are not expected here either.
    if (!match) return { kind: 'invalid', error: `not a ref update: ${line.slice(0, 80)}` };
    updates.push({ oldId: match[1] ?? '', newId: match[2] ?? '', ref: match[3] ?? '' });
  }
}

export function pktLine(payload: string | Buffer): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload) : payload;
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
}

export const FLUSH_PKT = Buffer.from('0000');

/**
 * A report-status (v1 and v2 read the same `ng` lines) refusing every update, each with its reason,
 * inside side-band channel 1 when the client asked for a side band; a side band also carries the
 * reason as a progress message, which git prints as `remote: …`.
 */
export function refusalReport(
  refusals: ReadonlyArray<{ ref: string; reason: string }>,
  capabilities: readonly string[],
  message: string,
): Buffer {
  const report = Buffer.concat([
    pktLine('unpack ok\n'),
    ...refusals.map(({ ref, reason }) => pktLine(`ng ${ref} ${reason.replace(/\n/g, ' ')}\n`)),
    FLUSH_PKT,
  ]);
  const band = capabilities.includes('side-band-64k') ? 65515 : capabilities.includes('side-band') ? 995 : 0;
  if (band === 0) return report;
  const packets = [pktLine(Buffer.concat([Buffer.from([2]), Buffer.from(`${message}\n`)]))];
  for (let i = 0; i < report.length; i += band)
    packets.push(pktLine(Buffer.concat([Buffer.from([1]), report.subarray(i, i + band)])));
  return Buffer.concat([...packets, FLUSH_PKT]);
}
