/**
 * The read-only system every sandbox gets: what git, node, npm and sh need (/usr, the /bin and /lib
 * links or folders, /etc with its secrets masked, the running Node's install folder when it lives
 * outside /usr), and private /proc, /dev, /tmp and /var/tmp. Nothing else of the host is there: not
 * /root or /home, not the state folder, not the user's repository, not the host's /proc.
 */
import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { SANDBOX_HOME } from './env.js';

/** Top-level system folders; on a merged-/usr system most are links into /usr (kept as links). */
const SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/** Files of /etc that hold secrets: bound over with /dev/null. */
const MASKED_FILES = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/environment',
  '/etc/security/opasswd',
];
/** Folders of /etc that hold secrets (host keys, sudo rules): an empty tmpfs over them. */
const MASKED_DIRS = ['/etc/ssh', '/etc/sudoers.d', '/etc/ssl/private'];

let cached: readonly string[] | null = null;

/** bwrap arguments for the read-only system and the private folders (computed once per process). */
export function systemMounts(): readonly string[] {
  cached ??= buildSystemMounts();
  return cached;
}

function buildSystemMounts(): string[] {
  const args: string[] = [];
  for (const dir of SYSTEM) {
    const kind = kindOf(dir);
    if (kind === 'link') args.push('--symlink', readlinkSync(dir), dir);
    else if (kind === 'dir') args.push('--ro-bind', dir, dir);
  }
  args.push('--ro-bind', '/etc', '/etc');
  for (const file of MASKED_FILES) if (kindOf(file) === 'file') args.push('--ro-bind', '/dev/null', file);
  for (const dir of MASKED_DIRS) if (kindOf(dir) === 'dir') args.push('--tmpfs', dir);
  // /etc/resolv.conf is often a link into /run (systemd-resolved): bind its target for DNS.
  const resolv = outsideTarget('/etc/resolv.conf', ['/etc', '/usr']);
  if (resolv) args.push('--ro-bind', resolv, resolv);
  const node = nodeInstall();
  if (node) args.push('--ro-bind', node, node);
  args.push(
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--tmpfs',
    '/var/tmp',
    '--dir',
    SANDBOX_HOME,
  );
  return args;
}

function kindOf(p: string): 'link' | 'dir' | 'file' | null {
  try {
    const stat = lstatSync(p);
    if (stat.isSymbolicLink()) return 'link';
    return stat.isDirectory() ? 'dir' : 'file';
  } catch {
    return null;
  }
}

/** The real path of the link `p` when it points outside `inside` (null otherwise or when absent). */
function outsideTarget(p: string, inside: string[]): string | null {
  if (kindOf(p) !== 'link') return null;
  try {
    const real = realpathSync(p);
    return inside.some((dir) => isWithin(real, dir)) ? null : real;
  } catch {
    return null;
  }
}

/**
 * The install folder of the Node running Colony (…/bin/node → …) when it is not under /usr, e.g. a
 * Node from nvm or /opt: bound read-only so that `node` and `npm` work in the sandbox as outside.
 */
function nodeInstall(): string | null {
  let real: string;
  try {
    real = realpathSync(process.execPath);
  } catch {
    return null;
  }
  if (isWithin(real, '/usr')) return null;
  const prefix = path.dirname(path.dirname(real));
  return prefix !== '/' && existsSync(prefix) && statSync(prefix).isDirectory() ? prefix : null;
}

export function isWithin(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
