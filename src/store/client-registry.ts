import { mkdirSync, readdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  formatIdentity,
  isProcessAlive,
  type ProcessIdentity,
  parseIdentity,
  processIdentity,
} from './process-liveness.js';

/**
 * The processes using a shared embedded server: one file per process, `<clientsDir>/<pid>`, holding
 * the pid and its start time. Only touch it while holding the server lock.
 */
export function registerClient(clientsDir: string): void {
  mkdirSync(clientsDir, { recursive: true });
  const me = processIdentity();
  writeFileSync(join(clientsDir, String(me.pid)), formatIdentity(me), { mode: 0o600 });
}

export function unregisterClient(clientsDir: string): void {
  try {
    unlinkSync(join(clientsDir, String(process.pid)));
  } catch {
    // Not registered.
  }
}

export interface ClientScan {
  live: ProcessIdentity[];
  /** Registered processes that are gone (crashed without unregistering); their files are removed. */
  dead: ProcessIdentity[];
}

/** Lists registered clients other than this process, pruning the dead ones. */
export function scanClients(clientsDir: string): ClientScan {
  const scan: ClientScan = { live: [], dead: [] };
  let names: string[];
  try {
    names = readdirSync(clientsDir);
  } catch {
    return scan;
  }
  for (const name of names) {
    if (name === String(process.pid)) continue;
    const file = join(clientsDir, name);
    let id: ProcessIdentity | null = null;
    try {
      id = parseIdentity(readFileSync(file, 'utf8'));
    } catch {
      continue;
    }
    if (id && isProcessAlive(id.pid, id.start)) {
      scan.live.push(id);
      continue;
    }
    scan.dead.push(id ?? { pid: Number(name), start: null });
    try {
      unlinkSync(file);
    } catch {
      // Pruned concurrently.
    }
  }
  return scan;
}
