/**
 * Network namespaces for multi-host tests: each "host" is a network namespace of its own with one
 * veth interface (eth0) on a private subnet, all plugged into one bridge that lives in a namespace of
 * its own (the switch). Nothing is added to the machine's own namespace: its interfaces, routes and
 * addresses stay as they are, and a host reaches only the other hosts of the same network (there is
 * no route anywhere else, not even to this machine's loopback).
 *
 * Names are `colnt<pid>-<host>` (pid: the test process), so leftovers of a crashed earlier run are
 * recognised by a pid that is no longer a Node process and removed (with any process still inside)
 * before a new network is made; a network of another live test process is left alone.
 *
 * Needs root and `ip` (iproute2; scripts/ensure-iproute2.sh installs it). `requireNetns` says which is
 * missing; the tests call it first and fail with its message (never skip).
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CliResult, COLONY_BIN } from './cli.js';

export const NETNS_PREFIX = 'colnt';

/** The failure message when namespaces cannot be made here, or null when they can. */
export function netnsUnavailable(): string | null {
  if (process.getuid?.() !== 0)
    return (
      'the multi-host test makes network namespaces and needs root (uid 0); CI (.ci/run) runs as root. ' +
      'Run it as root (e.g. sudo npx vitest run test/fleet/netns.test.ts)'
    );
  try {
    execFileSync('ip', ['-V'], { stdio: 'ignore' });
  } catch {
    return 'the multi-host test needs `ip` (iproute2): run `bash scripts/ensure-iproute2.sh` (as root), or apt-get install iproute2';
  }
  return null;
}

/** Throws netnsUnavailable()'s message, if any. */
export function requireNetns(): void {
  const why = netnsUnavailable();
  if (why) throw new Error(why);
}

function ip(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('ip', args, { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`ip ${args.join(' ')}: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
  });
}

async function listNamespaces(): Promise<string[]> {
  const out = await ip(['netns', 'list']);
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/)[0] ?? '')
    .filter(Boolean);
}

function isLiveNode(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('node');
  } catch {
    return false;
  }
}

/** Kills what still runs in the namespace (only ever one of ours), then deletes it. */
async function removeNamespace(ns: string): Promise<void> {
  const pids = (await ip(['netns', 'pids', ns]).catch(() => ''))
    .split('\n')
    .map(Number)
    .filter((pid) => pid > 0);
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  await ip(['netns', 'del', ns]).catch(() => {});
}

const owned = new Set<string>();

/** Removes the namespaces a crashed earlier test process left behind (its pid no longer runs Node). */
export async function removeLeftoverNamespaces(): Promise<string[]> {
  const removed: string[] = [];
  for (const ns of await listNamespaces()) {
    const match = new RegExp(`^${NETNS_PREFIX}(\\d+)-`).exec(ns);
    if (!match || owned.has(ns)) continue;
    const pid = Number(match[1]);
    if (pid !== process.pid && isLiveNode(pid)) continue;
    await removeNamespace(ns);
    removed.push(ns);
  }
  return removed;
}

export interface NetHost {
  name: string;
  /** The namespace's name. */
  ns: string;
  /** Its address on the network (eth0). */
  address: string;
  /** The command prefix that runs a program inside it. */
  exec: string[];
}

export interface TestNetwork<Name extends string = string> {
  /** e.g. 10.213.0.0/24 */
  subnet: string;
  hosts: Record<Name, NetHost>;
  /** Kills what still runs inside, then deletes every namespace (and so every link). Idempotent. */
  destroy(): Promise<void>;
}

/**
 * One bridge and one namespace per host name, addresses 10.213.<net>.2, .3, … in the order given.
 * Removes leftovers of crashed earlier runs first.
 */
export async function createNetwork<Name extends string>(
  hostNames: readonly Name[],
  net = 0,
): Promise<TestNetwork<Name>> {
  requireNetns();
  await removeLeftoverNamespaces();
  const id = `${NETNS_PREFIX}${process.pid}`;
  const base = `10.213.${net}`;
  const sw = `${id}-sw`;
  const made: string[] = [];
  const destroy = async () => {
    for (const ns of made.splice(0).reverse()) {
      await removeNamespace(ns);
      owned.delete(ns);
    }
  };
  const add = async (ns: string) => {
    // A namespace of this very process that a failed earlier attempt left is stale too.
    if ((await listNamespaces()).includes(ns)) await removeNamespace(ns);
    await ip(['netns', 'add', ns]);
    made.push(ns);
    owned.add(ns);
    await ip(['-n', ns, 'link', 'set', 'lo', 'up']);
  };
  const hosts = {} as Record<Name, NetHost>;
  try {
    await add(sw);
    await ip(['-n', sw, 'link', 'add', 'br0', 'type', 'bridge']);
    await ip(['-n', sw, 'link', 'set', 'br0', 'up']);
    for (const [i, name] of hostNames.entries()) {
      const ns = `${id}-${name}`;
      const address = `${base}.${i + 2}`;
      await add(ns);
      const port = `p${i}`;
      await ip(['-n', sw, 'link', 'add', port, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns]);
      await ip(['-n', sw, 'link', 'set', port, 'master', 'br0']);
      await ip(['-n', sw, 'link', 'set', port, 'up']);
      await ip(['-n', ns, 'addr', 'add', `${address}/24`, 'dev', 'eth0']);
      await ip(['-n', ns, 'link', 'set', 'eth0', 'up']);
      hosts[name] = { name, ns, address, exec: ['ip', 'netns', 'exec', ns] };
    }
  } catch (error) {
    await destroy();
    throw error;
  }
  return { subnet: `${base}.0/24`, hosts, destroy };
}

/** Starts `file args` inside the host's namespace (the pid is the program's own: ip execs it). */
export function spawnIn(
  host: NetHost,
  file: string,
  args: string[],
  options: Parameters<typeof spawn>[2] = {},
): ChildProcess {
  const [cmd = 'ip', ...prefix] = host.exec;
  return spawn(cmd, [...prefix, file, ...args], options);
}

/** Runs the built `colony` CLI inside the host's namespace (as test/helpers/cli.ts's colony()). */
export function colonyIn(
  host: NetHost,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CliResult> {
  const [cmd = 'ip', ...prefix] = host.exec;
  return new Promise((resolve) => {
    execFile(
      cmd,
      [...prefix, process.execPath, COLONY_BIN, ...args],
      {
        env: { ...process.env, ...options.env },
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The host's IPv4 routes (`ip -4 route`), one line each. */
export async function routesOf(host: NetHost): Promise<string[]> {
  return (await ip(['-n', host.ns, '-4', 'route', 'show']))
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

/** Whether a TCP connection from inside the host to `address:port` succeeds (within 3 s). */
export async function canConnect(host: NetHost, address: string, port: number): Promise<boolean> {
  const script = `const s = require('node:net').connect(${port}, ${JSON.stringify(address)});
s.setTimeout(3000, () => process.exit(3));
s.on('connect', () => process.exit(0));
s.on('error', () => process.exit(2));`;
  const child = spawnIn(host, process.execPath, ['-e', script], { stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return code === 0;
}

export interface Relay {
  /** http://ADDRESS:PORT of the relay inside the host. */
  url: string;
  close(): Promise<void>;
}

// Inside the host: listen on ADDRESS:PORT and pipe each connection to the Unix socket. Exits when
// this test process goes (its stdin closes).
const RELAY_SCRIPT = `
const net = require('node:net');
const [address, port, socketPath] = process.argv.slice(1);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream).pipe(client);
});
server.listen(Number(port), address, () => process.stdout.write('ready\\n'));
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
`;

/**
 * Makes a TCP server of this process (on its own 127.0.0.1:targetPort) reachable inside the host at
 * `address:port`, through a small relay process in the host's namespace and a Unix socket (a socket
 * file is reachable from any network namespace of this machine). Traffic stays between the
 * namespaces of the test network and this process.
 */
export async function relayInto(
  host: NetHost,
  port: number,
  targetPort: number,
): Promise<Relay & { child: ChildProcess }> {
  const dir = mkdtempSync(join(tmpdir(), 'colony-relay-'));
  const socketPath = join(dir, 'relay.sock');
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const target = netConnect(targetPort, '127.0.0.1');
    sockets.add(inbound).add(target);
    inbound.on('close', () => sockets.delete(inbound));
    target.on('close', () => sockets.delete(target));
    inbound.on('error', () => target.destroy());
    target.on('error', () => inbound.destroy());
    inbound.pipe(target).pipe(inbound);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });
  const child = spawnIn(
    host,
    process.execPath,
    ['-e', RELAY_SCRIPT, host.address, String(port), socketPath],
    {
      stdio: ['pipe', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const ready = await new Promise<boolean>((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready')) resolve(true);
    });
    child.on('close', () => resolve(false));
  });
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await closed;
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  };
  if (!ready) {
    await close();
    throw new Error(`the relay in ${host.ns} did not start: ${output.trim()}`);
  }
  return { url: `http://${host.address}:${port}`, child, close };
}
