import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { isSafeAgentName } from '../../auth/index.js';
import { readCaFile } from '../../fleet/tls.js';
import { openStoreWaiting } from '../../store/index.js';
import { numberFlag, parseFlags, UsageError } from '../args.js';
import { DATABASE_WAIT_HELP, databaseWaitFlag } from '../database-wait-flag.js';
import { CliFailure } from '../store-access.js';
import { autoResumeOff, startSupervision } from '../supervision.js';

export const WORKER_HELP = `colony worker [--database-url URL] [--slots N] [--name NAME] [--ca FILE] [--wait-for-database D]

Joins a fleet: executes agent sessions of any run started with --workers, at most N at once, until
Ctrl-C (its sessions then go back to the queue for the other workers). Workers share one Postgres
with the runs' owners (COLONY_DATABASE_URL, or --database-url); each agent works in its own
repository on this machine, cloned from the run's hub over HTTP with a token of its own. See
docs/fleet.md.

  --database-url URL   the fleet's Postgres (default COLONY_DATABASE_URL; required)
  --slots N            agent sessions at once on this worker (default 64). DBOS keeps one
                       per-worker limit per queue: the last worker started sets it for all
  --name NAME          this worker's stable name (default: <host>-<pid>); a worker that restarts
                       under its name takes its unfinished sessions back at once
  --ca FILE            PEM CA certificate(s) that owners' TLS certificates must chain to (runs
                       started with --tls-cert; default: the system's public roots)
  --insecure-http      send agents' tokens and code to an owner serving plain HTTP on a
                       non-loopback address (refused without it; loopback is always allowed)
  --no-auto-resume     do not resume, on its own, a run whose owner died (by default a worker
                       does, for runs whose repository is on its machine: docs/recovery.md;
                       COLONY_AUTO_RESUME=off too)
${DATABASE_WAIT_HELP}`;

export async function workerCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    {
      'database-url': { type: 'string' },
      slots: { type: 'string' },
      name: { type: 'string' },
      'no-auto-resume': { type: 'boolean' },
      ca: { type: 'string' },
      'insecure-http': { type: 'boolean' },
      'wait-for-database': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    'worker',
  );
  if (values.help) {
    process.stdout.write(`${WORKER_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`worker: unexpected argument "${positionals[0]}"`);
  const databaseUrl = values['database-url'] ?? process.env.COLONY_DATABASE_URL ?? '';
  if (!databaseUrl)
    throw new UsageError(
      "worker: needs the fleet's Postgres: set COLONY_DATABASE_URL or pass --database-url URL (the " +
        'embedded database listens on loopback for one user and cannot be shared; see docs/fleet.md)',
    );
  const slots = numberFlag(values.slots, 'slots', 'int') ?? 64;
  if (slots < 1 || slots > 10_000) throw new UsageError(`worker: --slots must be 1–10000, got ${slots}`);
  const name = values.name ?? `${hostname()}-${process.pid}`;
  if (!isSafeAgentName(name))
    throw new UsageError(`worker: --name must be letters, digits, "-", "_" or "." (got "${name}")`);

  const ca = values.ca === undefined ? undefined : caFlag(values.ca);
  const transport = { ...(ca ? { ca } : {}), insecureHttp: values['insecure-http'] === true };

  const waitMs = databaseWaitFlag(values['wait-for-database'], 'worker');

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const opened = await openStoreWaiting({
    databaseUrl,
    poolSize: Math.max(10, Math.min(40, slots)),
    waitMs,
    signal: stop.signal,
    say: (line) => process.stderr.write(`colony worker (${name}, starting): ${line}\n`),
  });
  if (!opened.ok) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    throw new CliFailure(`cannot open the fleet's database: ${opened.error}`);
  }
  const store = opened.store;
  // A resumed run's process opens the fleet's database, as this worker does.
  const env = { ...process.env, COLONY_DATABASE_URL: databaseUrl };
  const supervisor =
    values['no-auto-resume'] || autoResumeOff(process.env)
      ? null
      : startSupervision({ store, role: `worker ${name}`, env });
  try {
    const { runWorker } = await import('../../worker/worker.js');
    await runWorker({
      store,
      name,
      slots,
      dir: join(store.home, 'workers', name),
      env: process.env,
      transport,
      signal: stop.signal,
      say: (line) => process.stderr.write(`${line}\n`),
    });
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await supervisor?.stop();
    await store.close();
  }
}

/** `--ca FILE`: read once here, so a bad file is a usage error before the worker joins. */
function caFlag(file: string): { file: string; pem: Buffer } {
  const absolute = resolve(file);
  const pem = readCaFile(absolute);
  if (!pem.ok) throw new UsageError(`worker: --ca: ${pem.error}`);
  return { file: absolute, pem: pem.value };
}
