/**
 * `colony run --workers [--hub-listen HOST:PORT] [--hub-url URL] [--tls-cert FILE --tls-key FILE]
 * [--insecure-http]`: where the owner serves the run's hub and merge queue to its workers, and how
 * (src/fleet/tls.ts). Checked here so a mistake is a usage error before anything starts: the
 * certificate and key are read once, and plain HTTP off loopback needs --insecure-http.
 */
import { resolve } from 'node:path';
import { parseListen } from '../fleet/listen.js';
import { isLoopbackHost, plainHttpProblem, readTlsPair } from '../fleet/tls.js';
import type { RunSpec } from '../run/run-spec.js';
import { UsageError } from './args.js';

export interface FleetFlagValues {
  workers?: boolean;
  'hub-listen'?: string;
  'hub-url'?: string;
  'tls-cert'?: string;
  'tls-key'?: string;
  'insecure-http'?: boolean;
}

export const FLEET_OPTIONS = {
  workers: { type: 'boolean' },
  'hub-listen': { type: 'string' },
  'hub-url': { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'insecure-http': { type: 'boolean' },
} as const;

export const FLEET_HELP = `  --hub-listen ADDR    with --workers: where to serve the hub, HOST:PORT (default 127.0.0.1:0)
  --hub-url URL        with --workers: the URL workers reach it at (default: the listen address)
  --tls-cert FILE      with --workers: serve the hub and merge requests over HTTPS with this PEM
  --tls-key FILE       certificate (chain) and key; workers verify it (colony worker --ca FILE)
  --insecure-http      with --workers: allow plain HTTP on a non-loopback address (refused without
                       it: agents' tokens and code would cross the network unencrypted)`;

export function fleetFlags(
  values: FleetFlagValues,
  topology: string | undefined,
  env: NodeJS.ProcessEnv,
): RunSpec['fleet'] | null {
  const transport = values['tls-cert'] ?? values['tls-key'] ?? values['insecure-http'];
  if (!values.workers) {
    if (values['hub-listen'] !== undefined || values['hub-url'] !== undefined || transport !== undefined)
      throw new UsageError(
        'run: --hub-listen, --hub-url, --tls-cert, --tls-key and --insecure-http need --workers',
      );
    return null;
  }
  if (topology !== 'peers' && topology !== 'orchestrated')
    throw new UsageError(
      'run: --workers needs --topology peers or orchestrated (a solo agent or a workflow program runs in this process)',
    );
  if (!env.COLONY_DATABASE_URL)
    throw new UsageError(
      'run: --workers needs COLONY_DATABASE_URL: a Postgres the workers reach too (the embedded one ' +
        'listens on loopback for this user only); see docs/fleet.md',
    );
  const listen = values['hub-listen'];
  const listenAt = listen === undefined ? { host: '127.0.0.1', port: 0 } : parseListen(listen);
  if (listenAt === null)
    throw new UsageError(`run: --hub-listen must be HOST:PORT (e.g. 0.0.0.0:7070), not "${listen}"`);
  const url = values['hub-url'];
  if (url !== undefined && !/^https?:\/\/[^/]+\/?$/.test(url))
    throw new UsageError(`run: --hub-url must be http(s)://HOST[:PORT] with no path, not "${url}"`);

  const tls = tlsFiles(values);
  const insecureHttp = values['insecure-http'] === true;
  if (tls && insecureHttp)
    throw new UsageError(
      'run: --insecure-http allows plain HTTP; with --tls-cert/--tls-key there is none to allow',
    );
  if (tls && url?.startsWith('http:'))
    throw new UsageError(`run: the hub is served over TLS: --hub-url must be https://, not "${url}"`);
  if (!tls && url?.startsWith('https:'))
    throw new UsageError(
      `run: --hub-url ${url} is https://: give the certificate (--tls-cert FILE --tls-key FILE)`,
    );
  if (!tls && !insecureHttp) {
    const problem = !isLoopbackHost(listenAt.host)
      ? plainHttpProblem(
          `http://${listenAt.host.includes(':') ? `[${listenAt.host}]` : listenAt.host}`,
          false,
          'colony run',
        )
      : url !== undefined
        ? plainHttpProblem(url, false, 'colony run')
        : null;
    if (problem) throw new UsageError(`run: ${problem}`);
  }
  return {
    ...(listen !== undefined ? { listen } : {}),
    ...(url !== undefined ? { advertiseUrl: url.replace(/\/$/, '') } : {}),
    ...(tls ? { tls } : {}),
    ...(insecureHttp ? { insecureHttp } : {}),
  };
}

/** Absolute paths of the certificate and key, both read once here (a bad file is a usage error). */
function tlsFiles(values: FleetFlagValues): { cert: string; key: string } | null {
  const cert = values['tls-cert'];
  const key = values['tls-key'];
  if (cert === undefined && key === undefined) return null;
  if (cert === undefined || key === undefined)
    throw new UsageError('run: --tls-cert and --tls-key go together (the certificate and its private key)');
  const files = { cert: resolve(cert), key: resolve(key) };
  const read = readTlsPair(files);
  if (!read.ok) throw new UsageError(`run: ${read.error}`);
  return files;
}
