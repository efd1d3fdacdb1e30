/**
 * The audit key: an Ed25519 private key kept outside the database, in `$COLONY_HOME/audit-key`
 * (`COLONY_AUDIT_KEY` names another file), PEM (PKCS#8), mode 0600, created on first use. Anchors are
 * signed with it; the public key is derived from it. Its id is the first 16 hex digits of the SHA-256
 * of the public key (SPKI DER), written in every anchor.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
} from 'node:crypto';
import { constants } from 'node:fs';
import { link, lstat, mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { err, ok, type Result } from '../../lang/result.js';

export interface AuditKey {
  path: string;
  /** Null when only the public key is known (a verifier given `--public-key`). */
  privateKey: KeyObject | null;
  publicKey: KeyObject;
  keyId: string;
}

export function auditKeyPath(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const named = env.COLONY_AUDIT_KEY;
  return named && named.length > 0 ? named : join(home, 'audit-key');
}

export function keyIdOf(publicKey: KeyObject): string {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex').slice(0, 16);
}

/** A key from PEM text: a private key (its public half derived) or a public key alone. */
export function auditKeyFromPem(path: string, pem: string): Result<AuditKey> {
  try {
    if (pem.includes('PRIVATE KEY')) {
      const privateKey = createPrivateKey(pem);
      if (privateKey.asymmetricKeyType !== 'ed25519') return err(`${path} is not an Ed25519 key`);
      const publicKey = createPublicKey(privateKey);
      return ok({ path, privateKey, publicKey, keyId: keyIdOf(publicKey) });
    }
    const publicKey = createPublicKey(pem);
    if (publicKey.asymmetricKeyType !== 'ed25519') return err(`${path} is not an Ed25519 key`);
    return ok({ path, privateKey: null, publicKey, keyId: keyIdOf(publicKey) });
  } catch (e) {
    return err(`${path} is not a PEM key: ${(e as Error).message}`);
  }
}

/** Reads an existing key file; refuses a link, a non-file, or a private key others may read. */
export async function loadAuditKey(
  path: string,
): Promise<Result<AuditKey, { absent: boolean; message: string }>> {
  let mode: number;
  try {
    const info = await lstat(path);
    if (!info.isFile()) return err({ absent: false, message: `${path} is not a regular file` });
    mode = info.mode;
  } catch (e) {
    const absent = (e as NodeJS.ErrnoException).code === 'ENOENT';
    return err({ absent, message: absent ? `no audit key at ${path}` : (e as Error).message });
  }
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (e) {
    return err({ absent: false, message: `cannot read ${path}: ${(e as Error).message}` });
  }
  const pem = await handle.readFile('utf8').finally(() => handle.close());
  const key = auditKeyFromPem(path, pem);
  if (!key.ok) return err({ absent: false, message: key.error });
  if (key.value.privateKey && (mode & 0o077) !== 0)
    return err({
      absent: false,
      message: `${path} can be read by others (mode ${(mode & 0o777).toString(8)}); run chmod 600 ${path}`,
    });
  return ok(key.value);
}

/**
 * The key at `path`, created when absent: written to a private temporary file and linked into place,
 * so two processes creating it at once end with one key, complete before anyone reads it.
 */
export async function loadOrCreateAuditKey(path: string): Promise<Result<AuditKey>> {
  const existing = await loadAuditKey(path);
  if (existing.ok || !existing.error.absent) return existing.ok ? existing : err(existing.error.message);
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const { privateKey } = generateKeyPairSync('ed25519');
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.chmod(0o600);
      await handle.writeFile(pem);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temporary, path);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      await rm(temporary, { force: true });
    }
  } catch (e) {
    return err(`cannot create the audit key ${path}: ${(e as Error).message}`);
  }
  const created = await loadAuditKey(path);
  return created.ok ? created : err(created.error.message);
}

/** A public or private key named by `--public-key FILE` (no mode check: a public key is not secret). */
export async function readVerifyingKey(path: string): Promise<Result<AuditKey>> {
  try {
    return auditKeyFromPem(path, await readFile(path, 'utf8'));
  } catch (e) {
    return err(`cannot read ${path}: ${(e as Error).message}`);
  }
}
