/**
 * The anchored audit log through the built CLI: a real run (scripted HTTP model) is anchored when it
 * ends; a superuser who rewrites a suffix of its chain and the chain's head consistently passes the
 * plain check but not the anchored one, which names the first rewritten event; an altered anchor or
 * one signed by another key is refused.
 */
import { createPublicKey } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedPolicy } from '../../src/model/index.js';
import { keyIdOf } from '../../src/store/anchor/audit-key.js';
import { resolveHome, type Store } from '../../src/store/index.js';
import { type FakeProvider, startFakeProvider } from '../fake-provider/server.js';
import { colony, fakeModelFlags, lastJsonLine, NO_API_KEYS } from '../helpers/cli.js';
import { openTestStore, superuserClient } from '../helpers/db.js';
import { createUserRepo } from '../helpers/user-repo.js';

const policy: ScriptedPolicy = (request) => {
  const toolResults = request.messages.filter((m) => m.role === 'tool').length;
  if (toolResults === 0)
    return {
      toolCalls: [{ name: 'write', arguments: { path: 'hello.txt', content: 'hi\n' } }],
      usage: { input: 100, output: 10 },
    };
  return { text: 'wrote hello.txt', usage: { input: 120, output: 5 } };
};

interface AnchorLine {
  runId: string;
  lastSeq: number;
  hash: string;
  keyId: string;
  trail: string | null;
  sig: string;
}

const readLines = (path: string): AnchorLine[] =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as AnchorLine);

let fake: FakeProvider;
let store: Store;
let runId = '';
const home = resolveHome();
const keyPath = join(home, 'audit-key');
const scratch = mkdtempSync(join(tmpdir(), 'colony-anchor-cli-'));
const outFile = join(scratch, 'out.jsonl');

beforeAll(async () => {
  fake = await startFakeProvider({ policy });
  store = await openTestStore();
});
afterAll(async () => {
  await fake.close();
  await store.close();
});

/** As a superuser: rewrites the data of `fromSeq`, re-hashes every later row and moves the head. */
async function rewriteSuffix(fromSeq: number): Promise<void> {
  const su = await superuserClient(store);
  try {
    await su.query('BEGIN');
    await su.query('SET LOCAL session_replication_role = replica');
    await su.query(
      `UPDATE colony.events SET data = jsonb_set(data, '{latencyMs}', '1') WHERE run_id = $1 AND seq = $2`,
      [runId, fromSeq],
    );
    const before = await su.query<{ hash: string }>(
      'SELECT hash FROM colony.events WHERE run_id = $1 AND seq = $2',
      [runId, fromSeq - 1],
    );
    let prev = before.rows[0]?.hash ?? '0'.repeat(64);
    const rows = await su.query<{ seq: string }>(
      'SELECT seq FROM colony.events WHERE run_id = $1 AND seq >= $2 ORDER BY seq',
      [runId, fromSeq],
    );
    for (const row of rows.rows) {
      const res = await su.query<{ hash: string }>(
        `UPDATE colony.events SET prev_hash = $3,
           hash = colony.event_hash($3, run_id, seq, agent, kind, ts, data)
         WHERE run_id = $1 AND seq = $2 RETURNING hash`,
        [runId, row.seq, prev],
      );
      prev = res.rows[0]?.hash ?? '';
    }
    await su.query('UPDATE colony.run_heads SET last_hash = $2 WHERE run_id = $1', [runId, prev]);
    await su.query('COMMIT');
  } finally {
    await su.end();
  }
}

describe('colony anchor and colony verify against anchors', () => {
  it('anchors a run when it ends, with the audit key created 0600', async () => {
    const repo = createUserRepo({ 'README.md': '# tiny\n' }, 'colony-anchor-repo-').dir;
    const r = await colony(
      ['run', '--repo', repo, '--goal', 'write hello.txt', ...fakeModelFlags(fake.url), '--json'],
      { env: NO_API_KEYS },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    runId = String(lastJsonLine(r.stdout).runId);
    expect(statSync(keyPath).mode & 0o777).toBe(0o600);
    const keyId = keyIdOf(createPublicKey(readFileSync(keyPath, 'utf8')));
    const [finished] = await store.log.read(runId, { kinds: ['run.finished'] });
    const anchors = readLines(join(home, 'anchors', `${runId}.jsonl`));
    expect(anchors).toHaveLength(1);
    expect(anchors[0]).toMatchObject({ runId, keyId });
    expect(anchors[0]?.lastSeq).toBeGreaterThanOrEqual(finished?.seq ?? Number.POSITIVE_INFINITY);
    expect(anchors[0]?.trail).toHaveLength((anchors[0]?.lastSeq ?? 0) * 8);
    const verify = await colony(['verify', runId]);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/hash chain intact/);
    expect(verify.stdout).toMatch(/matches its anchor/);
  });

  it('colony anchor --out appends a signed head, reusing the key', async () => {
    const keyBefore = readFileSync(keyPath, 'utf8');
    for (let i = 0; i < 2; i++) {
      const r = await colony(['anchor', runId, '--out', outFile]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(outFile);
    }
    expect(readFileSync(keyPath, 'utf8')).toBe(keyBefore);
    const lines = readLines(outFile);
    expect(lines).toHaveLength(2);
    expect(new Set(lines.map((l) => l.keyId))).toEqual(new Set([keyIdOf(createPublicKey(keyBefore))]));
    const [head] = await store.log.read(runId, { afterSeq: (lines[0]?.lastSeq ?? 1) - 1, limit: 1 });
    expect(head?.hash).toBe(lines[0]?.hash);
    const verify = await colony(['verify', runId, '--anchor', outFile]);
    expect(verify.code).toBe(0);
  });

  it('catches a rewritten chain suffix plus run_heads, naming the first rewritten event', async () => {
    const [response] = await store.log.read(runId, { kinds: ['model.response'], limit: 1 });
    const seq = response?.seq ?? 0;
    expect(seq).toBeGreaterThan(1);
    await rewriteSuffix(seq);

    // The chain is consistent again: the plain check passes.
    const plain = await colony(['verify', runId, '--no-anchor']);
    expect(plain.stdout).toMatch(/hash chain intact/);
    expect(plain.code).toBe(0);

    const anchored = await colony(['verify', runId]);
    expect(anchored.code).toBe(1);
    expect(anchored.stdout).toMatch(/hash chain intact/);
    expect(anchored.stdout).toContain(`DIFFERS from its anchor`);
    expect(anchored.stdout).toContain(`the first event that differs is seq ${seq} (model.response)`);

    const fromFile = await colony(['verify', runId, '--anchor', outFile, '--json']);
    expect(fromFile.code).toBe(1);
    const json = lastJsonLine(fromFile.stdout) as {
      ok: boolean;
      chainOk: boolean;
      anchor: { verdict: { firstDifference: unknown } };
    };
    expect(json).toMatchObject({ ok: false, chainOk: true });
    expect(json.anchor.verdict.firstDifference).toEqual({ seq, kind: 'model.response' });
  });

  it('refuses an anchor whose head was altered to match, and one signed by another key', async () => {
    const [forgedHead] = await store.log.read(runId, {
      afterSeq: (readLines(outFile)[0]?.lastSeq ?? 1) - 1,
      limit: 1,
    });
    const altered = join(scratch, 'altered.jsonl');
    const original = readLines(outFile)[0] as AnchorLine;
    writeFileSync(altered, `${JSON.stringify({ ...original, hash: forgedHead?.hash })}\n`);
    const r = await colony(['verify', runId, '--anchor', altered]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /anchor REFUSED: anchor 1 of .*altered\.jsonl is refused: .*the anchor was altered/,
    );

    // An attacker's own key (COLONY_AUDIT_KEY names it; created 0600 on first use) signs the forged head.
    const otherKey = join(scratch, 'other-key');
    const forged = join(scratch, 'forged.jsonl');
    const signed = await colony(['anchor', runId, '--out', forged], { env: { COLONY_AUDIT_KEY: otherKey } });
    expect(signed.code).toBe(0);
    expect(statSync(otherKey).mode & 0o777).toBe(0o600);
    const refused = await colony(['verify', runId, '--anchor', forged]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/not by the audit key/);
    // With the attacker's key named, the forged anchor checks out: the key is what the anchor is worth.
    const withOther = await colony(['verify', runId, '--anchor', forged, '--public-key', otherKey]);
    expect(withOther.code).toBe(0);
  });
});
