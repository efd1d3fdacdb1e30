/**
 * A throwaway certificate authority and server certificates for the fleet's TLS tests, made with
 * openssl (scripts/ensure-openssl.sh): a CA the workers are given (`colony worker --ca`) and, per
 * owner address, a certificate for that IP signed by it (`colony run --tls-cert/--tls-key`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCa {
  dir: string;
  /** The CA's certificate (PEM): what workers trust. */
  caFile: string;
  /** A certificate and key for these IP addresses, signed by the CA. */
  serverCert(ips: readonly string[]): { cert: string; key: string };
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export function makeTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'colony-test-ca-'));
  const caKey = join(dir, 'ca.key');
  const caFile = join(dir, 'ca.pem');
  openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', caKey], dir);
  openssl(
    [
      'req',
      '-x509',
      '-new',
      '-key',
      caKey,
      '-sha256',
      '-days',
      '2',
      '-subj',
      '/CN=colony test CA',
      '-out',
      caFile,
    ],
    dir,
  );
  let made = 0;
  return {
    dir,
    caFile,
    serverCert(ips) {
      made += 1;
      const key = join(dir, `server-${made}.key`);
      const csr = join(dir, `server-${made}.csr`);
      const cert = join(dir, `server-${made}.pem`);
      const ext = join(dir, `server-${made}.ext`);
      writeFileSync(
        ext,
        `subjectAltName=${ips.map((ip) => `IP:${ip}`).join(',')}\nextendedKeyUsage=serverAuth\n`,
      );
      openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key], dir);
      openssl(['req', '-new', '-key', key, '-subj', '/CN=colony owner', '-out', csr], dir);
      openssl(
        [
          'x509',
          '-req',
          '-in',
          csr,
          '-CA',
          caFile,
          '-CAkey',
          caKey,
          '-CAcreateserial',
          '-days',
          '2',
          '-sha256',
          '-extfile',
          ext,
          '-out',
          cert,
        ],
        dir,
      );
      return { cert, key };
    },
  };
}
