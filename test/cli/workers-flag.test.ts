/**
 * `colony run --workers` (and config `workers: true`): the usage errors a user meets before any run is
 * recorded — the topology, the shared Postgres, and the hub's listen address and URL.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_HELP, runCommand } from '../../src/cli/commands/run.js';
import { createUserRepo } from '../helpers/user-repo.js';

const repo = () => createUserRepo({ 'a.txt': 'a\n' }, 'colony-workers-flag-').dir;

const saved = process.env.COLONY_DATABASE_URL;
afterEach(() => {
  if (saved === undefined) delete process.env.COLONY_DATABASE_URL;
  else process.env.COLONY_DATABASE_URL = saved;
});

describe('colony run --workers', () => {
  it('is documented and refused with a clear reason where a fleet cannot run the run', async () => {
    expect(RUN_HELP).toMatch(/--workers +peers, orchestrated/);
    const dir = repo();
    const run = (...args: string[]) =>
      runCommand(['--repo', dir, '--goal', 'g', '--verify', 'true', ...args]);
    const peers = ['--topology', 'peers', '--agents', '2'];
    process.env.COLONY_DATABASE_URL = 'postgres://u:p@127.0.0.1:1/fleet';
    await expect(run('--workers')).rejects.toThrow(/--workers needs --topology peers or orchestrated/);
    await expect(run(...peers, '--workers', '--hub-listen', 'nowhere')).rejects.toThrow(
      /--hub-listen must be HOST:PORT/,
    );
    await expect(run(...peers, '--workers', '--hub-url', 'http://h:1/path')).rejects.toThrow(
      /--hub-url must be http\(s\):\/\/HOST\[:PORT\] with no path/,
    );
    await expect(run(...peers, '--hub-listen', '0.0.0.0:7070')).rejects.toThrow(
      /--hub-listen, --hub-url, --tls-cert, --tls-key and --insecure-http need --workers/,
    );
    delete process.env.COLONY_DATABASE_URL;
    await expect(run(...peers, '--workers')).rejects.toThrow(/--workers needs COLONY_DATABASE_URL/);
  });

  it('takes workers: true from a config file named with --config', async () => {
    const dir = repo();
    const config = join(mkdtempSync(join(tmpdir(), 'colony-workers-config-')), 'colony.json');
    writeFileSync(config, JSON.stringify({ workers: true }));
    delete process.env.COLONY_DATABASE_URL;
    await expect(
      runCommand([
        '--repo',
        dir,
        '--goal',
        'g',
        '--verify',
        'true',
        '--topology',
        'peers',
        '--agents',
        '2',
        '--config',
        config,
      ]),
    ).rejects.toThrow(/--workers needs COLONY_DATABASE_URL/);
  });
});
