/**
 * How a fleet's traffic crosses the network: the owner's gateway (the hub over git's smart HTTP and
 * the merge-request routes, gateway.ts) serves TLS when given a certificate and key, and workers
 * verify it against a CA file they are given (`colony worker --ca`). Plain HTTP is allowed on
 * loopback only, or where a person said so (`--insecure-http`), since agents' tokens and the code
 * they push cross it.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { createSecureContext } from 'node:tls';
import { err, ok, type Result } from '../lang/result.js';

/** Paths of the owner's PEM certificate (chain) and private key, as given on the command line. */
export interface TlsFiles {
  cert: string;
  key: string;
}

export interface TlsPair {
  cert: Buffer;
  key: Buffer;
}

/** Reads the owner's certificate and key; a missing or unreadable file is a clear error. */
export function readTlsPair(files: TlsFiles): Result<TlsPair> {
  const cert = readPem(files.cert, 'certificate', 'CERTIFICATE');
  if (!cert.ok) return cert;
  const key = readPem(files.key, 'private key', 'PRIVATE KEY');
  if (!key.ok) return key;
  // The pair as the server will load it: a key of another certificate fails here, not at listen.
  try {
    createSecureContext({ cert: cert.value, key: key.value });
  } catch (error) {
    return err(
      `the TLS certificate ${files.cert} and key ${files.key} are not a usable pair: ${(error as Error).message}`,
    );
  }
  return ok({ cert: cert.value, key: key.value });
}

/** A worker's CA bundle (PEM) that the owner's certificate must chain to. */
export function readCaFile(file: string): Result<Buffer> {
  return readPem(file, 'CA certificate', 'CERTIFICATE');
}

function readPem(file: string, what: string, label: string): Result<Buffer> {
  let text: Buffer;
  try {
    text = readFileSync(file);
  } catch (error) {
    return err(`cannot read the TLS ${what} ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  // "BEGIN PRIVATE KEY", "BEGIN RSA PRIVATE KEY", "BEGIN EC PRIVATE KEY" all end in the label.
  if (!new RegExp(`-----BEGIN [A-Z ]*${label}-----`).test(text.toString('latin1')))
    return err(`the TLS ${what} ${file} is not PEM (no "-----BEGIN … ${label}-----" line)`);
  return ok(text);
}

/** 127.0.0.0/8, ::1, localhost: traffic that never leaves the machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (isIP(bare) === 6) return bare === '::1' || bare === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * Why a fleet URL may not be used as it is, or null: plain http:// to a host that is not loopback
 * needs `insecureHttp` (the person's explicit `--insecure-http`).
 */
export function plainHttpProblem(url: string, insecureHttp: boolean, flagOwner: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `"${url}" is not a URL`;
  }
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol !== 'http:') return `"${url}" is neither http:// nor https://`;
  if (insecureHttp || isLoopbackHost(parsed.hostname)) return null;
  return (
    `the fleet's hub ${parsed.origin} is plain HTTP on a non-loopback address: agents' tokens and code ` +
    `would cross the network unencrypted. Serve it with TLS (colony run --tls-cert FILE --tls-key FILE; ` +
    `workers verify it with colony worker --ca FILE), or pass ${flagOwner} --insecure-http to allow it`
  );
}
