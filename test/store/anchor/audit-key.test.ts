import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditKeyPath, loadAuditKey, loadOrCreateAuditKey } from '../../../src/store/anchor/audit-key.js';

const freshDir = () => mkdtempSync(join(tmpdir(), 'colony-audit-key-'));

describe('the audit key', () => {
  it('lives in $COLONY_HOME/audit-key unless COLONY_AUDIT_KEY names another file', () => {
    expect(auditKeyPath('/h', {})).toBe('/h/audit-key');
    expect(auditKeyPath('/h', { COLONY_AUDIT_KEY: '/keys/k.pem' })).toBe('/keys/k.pem');
  });

  it('is created on first use as an Ed25519 PEM private key with mode 0600, and reused after', async () => {
    const path = join(freshDir(), 'audit-key');
    expect((await loadAuditKey(path)).ok).toBe(false);
    const first = await loadOrCreateAuditKey(path);
    if (!first.ok) throw new Error(first.error);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const pem = readFileSync(path, 'utf8');
    expect(pem).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(first.value.privateKey?.asymmetricKeyType).toBe('ed25519');
    const again = await loadOrCreateAuditKey(path);
    if (!again.ok) throw new Error(again.error);
    expect(again.value.keyId).toBe(first.value.keyId);
    expect(readFileSync(path, 'utf8')).toBe(pem);
  });

  it('gives one key to processes creating it at once', async () => {
    const path = join(freshDir(), 'nested', 'audit-key');
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadOrCreateAuditKey(path)));
    const ids = new Set(keys.map((k) => (k.ok ? k.value.keyId : k.error)));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^[0-9a-f]{16}$/);
  });

  it('refuses a private key that others may read, and a file that is not a key', async () => {
    const dir = freshDir();
    const path = join(dir, 'audit-key');
    await loadOrCreateAuditKey(path);
    chmodSync(path, 0o644);
    const open = await loadOrCreateAuditKey(path);
    expect(open.ok).toBe(false);
    if (!open.ok) expect(open.error).toMatch(/chmod 600/);
    const junk = join(dir, 'junk');
    writeFileSync(junk, 'not a key\n', { mode: 0o600 });
    const bad = await loadAuditKey(junk);
    expect(bad.ok).toBe(false);
  });
});
