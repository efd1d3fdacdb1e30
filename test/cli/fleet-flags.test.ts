/**
 * `colony run --workers` with `--tls-cert/--tls-key` or `--insecure-http` (src/cli/fleet-flags.ts):
 * plain HTTP off loopback is a usage error unless allowed explicitly, and a certificate and key are
 * read and checked as a pair before anything starts. Certificates come from a throwaway CA (openssl).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fleetFlags } from '../../src/cli/fleet-flags.js';
import { COLONY_BIN } from '../helpers/cli.js';
import { makeTestCa, type TestCa } from '../helpers/tls-certs.js';

const ENV = { COLONY_DATABASE_URL: 'postgres://u:p@127.0.0.1:1/fleet' };
const flags = (values: Parameters<typeof fleetFlags>[0]) =>
  fleetFlags({ workers: true, ...values }, 'peers', ENV);

describe('the fleet transport flags of colony run', () => {
  let ca: TestCa;
  let pair: { cert: string; key: string };
  let other: { cert: string; key: string };
  beforeAll(() => {
    ca = makeTestCa();
    pair = ca.serverCert(['10.0.0.1']);
    other = ca.serverCert(['10.0.0.2']);
  });
  afterAll(() => {
    rmSync(ca.dir, { recursive: true, force: true });
  });

  it('keeps plain HTTP on loopback, and refuses it elsewhere unless --insecure-http', () => {
    expect(flags({})).toEqual({});
    expect(flags({ 'hub-listen': '127.0.0.1:7070' })).toEqual({ listen: '127.0.0.1:7070' });
    expect(() => flags({ 'hub-listen': '0.0.0.0:7070' })).toThrow(
      /http:\/\/0\.0\.0\.0 is plain HTTP on a non-loopback address.*--tls-cert FILE --tls-key FILE.*--insecure-http/,
    );
    // Listening on loopback but telling workers to come from elsewhere (a proxy in front) is the same.
    expect(() => flags({ 'hub-url': 'http://10.0.0.1:7070' })).toThrow(
      /plain HTTP on a non-loopback address/,
    );
    expect(flags({ 'hub-listen': '0.0.0.0:7070', 'insecure-http': true })).toEqual({
      listen: '0.0.0.0:7070',
      insecureHttp: true,
    });
    expect(() => fleetFlags({ 'insecure-http': true }, 'peers', ENV)).toThrow(/need --workers/);
  });

  it('serves TLS with a certificate and key given together, read and matched up front', () => {
    expect(flags({ 'hub-listen': '0.0.0.0:7070', 'tls-cert': pair.cert, 'tls-key': pair.key })).toEqual({
      listen: '0.0.0.0:7070',
      tls: { cert: pair.cert, key: pair.key },
    });
    expect(() => flags({ 'tls-cert': pair.cert })).toThrow(/--tls-cert and --tls-key go together/);
    expect(() => flags({ 'tls-cert': join(ca.dir, 'missing.pem'), 'tls-key': pair.key })).toThrow(
      /cannot read the TLS certificate .*missing\.pem: ENOENT/,
    );
    const notPem = join(ca.dir, 'not.pem');
    writeFileSync(notPem, 'hello\n');
    expect(() => flags({ 'tls-cert': notPem, 'tls-key': pair.key })).toThrow(/is not PEM/);
    // A key of another certificate.
    expect(() => flags({ 'tls-cert': pair.cert, 'tls-key': other.key })).toThrow(/are not a usable pair/);
    const tls = { 'tls-cert': pair.cert, 'tls-key': pair.key };
    expect(() => flags({ ...tls, 'hub-url': 'http://10.0.0.1:7070' })).toThrow(
      /--hub-url must be https:\/\//,
    );
    expect(() => flags({ 'hub-url': 'https://10.0.0.1:7070' })).toThrow(/give the certificate/);
    expect(() => flags({ ...tls, 'insecure-http': true })).toThrow(/there is none to allow/);
  });

  it('colony worker --ca takes a PEM file, and says which file is wrong', () => {
    const worker = (...args: string[]) =>
      spawnSync(process.execPath, [COLONY_BIN, 'worker', ...args], {
        env: { ...process.env, ...ENV },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const missing = worker('--ca', join(ca.dir, 'nope.pem'));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/--ca: cannot read the TLS CA certificate .*nope\.pem: ENOENT/);
    const key = join(ca.dir, 'key-as-ca.pem');
    copyFileSync(pair.key, key);
    const wrong = worker('--ca', key);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(/is not PEM \(no "-----BEGIN … CERTIFICATE-----" line\)/);
  });
});
