/** The hub server's pure parts: pkt-line command lists, the refusal report, CGI headers, the env. */
import { describe, expect, it } from 'vitest';
import { httpBackendEnv, parseCgiHead } from '../../../src/workspace/hub-http/cgi.js';
import { parseCommandList, pktLine, refusalReport } from '../../../src/workspace/hub-http/pkt.js';
import { refusalOf } from '../../../src/workspace/hub-http/refs.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const ZERO = '0'.repeat(40);

/** Splits pkt-lines (flush as null). */
function pkts(data: Buffer): Array<Buffer | null> {
  const out: Array<Buffer | null> = [];
  let i = 0;
  while (i < data.length) {
    const size = Number.parseInt(data.toString('latin1', i, i + 4), 16);
    out.push(size === 0 ? null : data.subarray(i + 4, i + size));
    i += size === 0 ? 4 : size;
  }
  return out;
}

describe('receive-pack command list', () => {
  const list = Buffer.concat([
    pktLine(`shallow ${B}\n`),
    pktLine(`${A} ${B} refs/heads/agent/a\0report-status-v2 side-band-64k quiet object-format=sha1\n`),
    pktLine(`${ZERO} ${B} refs/heads/main\n`),
    Buffer.from('0000'),
    Buffer.from('PACK...'),
  ]);

  it('parses updates and capabilities, skipping shallow lines, up to the flush', () => {
    const parsed = parseCommandList(list);
    expect(parsed).toEqual({
      kind: 'complete',
      updates: [
        { oldId: A, newId: B, ref: 'refs/heads/agent/a' },
        { oldId: ZERO, newId: B, ref: 'refs/heads/main' },
      ],
      capabilities: ['report-status-v2', 'side-band-64k', 'quiet', 'object-format=sha1'],
      length: list.length - 'PACK...'.length,
    });
  });

  it('is incomplete at every cut before the flush', () => {
    const flushEnd = list.length - 'PACK...'.length;
    for (let cut = 0; cut < flushEnd; cut++)
      expect(parseCommandList(list.subarray(0, cut)).kind, `cut at ${cut}`).toBe('incomplete');
    expect(parseCommandList(list.subarray(0, flushEnd)).kind).toBe('complete');
  });

  it('takes a lone flush (git probing before a large push) as no updates', () => {
    expect(parseCommandList(Buffer.from('0000'))).toEqual({
      kind: 'complete',
      updates: [],
      capabilities: [],
      length: 4,
    });
  });

  it('calls anything else invalid', () => {
    for (const bad of [
      Buffer.from('zzzz'),
      Buffer.from('0002'),
      pktLine(`push-cert\0report-status\n`),
      pktLine(`${A} ${B}\n`),
      pktLine(`${A} xyz refs/heads/a\n`),
      Buffer.concat([pktLine(`${A} ${B} refs/heads/a\n`), pktLine(`${A} ${B} refs/heads/b\0caps\n`)]),
    ])
      expect(parseCommandList(Buffer.concat([bad, Buffer.from('0000')])).kind, bad.toString()).toBe(
        'invalid',
      );
  });
});

describe('who may update what', () => {
  it('allows only the agent’s own branch and wip ref, and no deletes', () => {
    const update = (ref: string, newId = B) => refusalOf('a', { oldId: A, newId, ref });
    expect(update('refs/heads/agent/a')).toBeNull();
    expect(update('refs/colony/wip/a')).toBeNull();
    for (const ref of [
      'refs/heads/main',
      'refs/heads/agent/b',
      'refs/heads/agent/ab',
      'refs/heads/agent/a/x',
      'refs/tags/v1',
      'HEAD',
    ])
      expect(update(ref), ref).toMatch(/may push only/);
    expect(update('refs/heads/agent/a', ZERO)).toMatch(/deleting/);
  });
});

describe('refusal report', () => {
  const refusals = [
    { ref: 'refs/heads/main', reason: 'not yours' },
    { ref: 'refs/heads/agent/a', reason: 'refused with the other updates' },
  ];

  it('is a plain report-status without a side band', () => {
    expect(
      pkts(refusalReport(refusals, ['report-status'], 'colony: not yours')).map((p) => p?.toString() ?? null),
    ).toEqual([
      'unpack ok\n',
      'ng refs/heads/main not yours\n',
      'ng refs/heads/agent/a refused with the other updates\n',
      null,
    ]);
  });

  it('rides in band 1 with the message in band 2 when asked for a side band', () => {
    const outer = pkts(refusalReport(refusals, ['report-status', 'side-band-64k'], 'colony: not yours'));
    expect(outer.at(-1)).toBeNull();
    expect(outer[0]?.toString()).toBe('\x02colony: not yours\n');
    const band1 = Buffer.concat(
      outer.filter((p): p is Buffer => p !== null && p[0] === 1).map((p) => p.subarray(1)),
    );
    expect(pkts(band1).map((p) => p?.toString() ?? null)).toEqual([
      'unpack ok\n',
      'ng refs/heads/main not yours\n',
      'ng refs/heads/agent/a refused with the other updates\n',
      null,
    ]);
  });
});

describe('CGI output', () => {
  it('reads Status and headers up to the blank line, CRLF or LF', () => {
    const crlf = parseCgiHead(Buffer.from('Status: 403 Forbidden\r\nContent-Type: text/plain\r\n\r\nno'));
    expect(crlf).toEqual({ status: 403, headers: { 'Content-Type': 'text/plain' }, rest: Buffer.from('no') });
    const lf = parseCgiHead(Buffer.from('Content-Type: a/b\n\nbody'));
    expect(lf?.status).toBe(200);
    expect(lf?.rest.toString()).toBe('body');
    expect(parseCgiHead(Buffer.from('Content-Type: a/b\r\n'))).toBeNull();
  });
});

describe('http-backend environment', () => {
  it('carries none of Colony’s variables and appends the serving rules after the hardened config', () => {
    process.env.COLONY_TEST_API_KEY = 'sk-should-not-leak';
    process.env.GIT_DIR = '/somewhere/else';
    try {
      const env = httpBackendEnv({
        hubPath: '/state/runs/r-1/hub.git',
        pathInRepo: '/git-receive-pack',
        method: 'POST',
        query: '',
        contentType: 'application/x-git-receive-pack-request',
        agent: 'a',
        remoteAddress: '127.0.0.1',
      });
      expect(Object.values(env)).not.toContain('sk-should-not-leak');
      expect(env.GIT_DIR).toBeUndefined();
      expect(env.SSH_AUTH_SOCK).toBeUndefined();
      expect(env.GIT_PROTOCOL).toBeUndefined();
      expect(env).toMatchObject({
        GIT_PROJECT_ROOT: '/state/runs/r-1',
        PATH_INFO: '/hub.git/git-receive-pack',
        REMOTE_USER: 'a',
        GIT_HTTP_EXPORT_ALL: '1',
      });
      const count = Number(env.GIT_CONFIG_COUNT);
      const config = Array.from(
        { length: count },
        (_, i) => `${env[`GIT_CONFIG_KEY_${i}`]}=${env[`GIT_CONFIG_VALUE_${i}`]}`,
      );
      expect(config).toContain('core.hooksPath=/dev/null');
      expect(config).toContain('core.fsmonitor=false');
      expect(config).toContain('http.getanyfile=false');
      expect(config.filter((c) => c.startsWith('transfer.hideRefs='))).toEqual([
        'transfer.hideRefs=refs',
        'transfer.hideRefs=!refs/heads/main',
        'transfer.hideRefs=!refs/heads/agent/a',
        'transfer.hideRefs=!refs/colony/wip/a',
      ]);
      expect(env[`GIT_CONFIG_KEY_${count}`]).toBeUndefined();
    } finally {
      delete process.env.COLONY_TEST_API_KEY;
      delete process.env.GIT_DIR;
    }
  });
});
