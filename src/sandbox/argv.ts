/**
 * The bwrap command line for one command: every namespace unshared (network shared only when the
 * sandbox allows it), no capabilities, the read-only system, the checkout, a read-only root, and an
 * environment from the allow-list. `--die-with-parent` ties the sandbox to bwrap's parent (Colony), and
 * bwrap's own process is what Colony starts in a process group of its own, so killing that group (on
 * time-out or abort) takes bwrap down and the kernel then kills everything in the sandbox's PID
 * namespace. `--new-session` keeps sandboxed commands off Colony's terminal.
 */
import { checkoutMounts } from './checkout.js';
import { sandboxEnv } from './env.js';
import { systemMounts } from './mounts.js';
import type { Sandbox } from './sandbox.js';

export interface ContainedCommand {
  /** What to spawn (bwrap), its arguments and its environment (the sandbox's own, also bwrap's). */
  file: string;
  args: string[];
  env: Record<string, string>;
}

export interface ContainOptions {
  /** The checkout the command runs in (its working folder). */
  cwd: string;
  /** Where PATH, LANG and TERM come from (default `process.env`). */
  baseEnv?: NodeJS.ProcessEnv;
  /** Variables Colony sets for this command. */
  extraEnv?: Readonly<Record<string, string>>;
  /**
   * More of the host in the sandbox (an external agent CLI's own config folder as its HOME, the
   * install it runs from, the host server's socket): bound after the checkout, read-only unless
   * `writable`.
   */
  binds?: readonly { source: string; dest: string; writable?: boolean }[];
}

export function containCommand(
  sandbox: Sandbox,
  command: readonly string[],
  options: ContainOptions,
): ContainedCommand {
  const env = sandboxEnv(options.baseEnv ?? process.env, sandbox.passEnv, options.extraEnv);
  const args = [
    '--unshare-all',
    ...(sandbox.network ? ['--share-net'] : []),
    '--die-with-parent',
    '--new-session',
    '--cap-drop',
    'ALL',
    ...systemMounts(),
    ...checkoutMounts(options.cwd, sandbox.writable),
    ...(options.binds ?? []).flatMap((b) => [b.writable ? '--bind' : '--ro-bind', b.source, b.dest]),
    '--remount-ro',
    '/',
    '--clearenv',
    ...Object.entries(env).flatMap(([name, value]) => ['--setenv', name, value]),
    '--',
    ...command,
  ];
  // bwrap itself gets the sandbox's environment too: the sandbox's PID 1 is a copy of bwrap, and its
  // /proc/1/environ is readable inside.
  return { file: sandbox.bwrap, args, env };
}
