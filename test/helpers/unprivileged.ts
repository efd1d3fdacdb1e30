/**
 * Running a check as an unprivileged user. Root may write any file and enter any folder, so a check
 * of permissions means nothing as root; as root, the check runs in a child process as a system user
 * made for the tests (`colony-test`, created once with useradd). As any other user it runs as that user.
 */
import { execFileSync, spawnSync } from 'node:child_process';

export const TEST_USER = 'colony-test';

export interface UserIds {
  uid: number;
  gid: number;
}

/** The ids of the unprivileged test user (created when missing); null when not running as root. */
export function unprivilegedUser(): UserIds | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, TEST_USER], { encoding: 'utf8' }).trim());
  if (spawnSync('id', ['-u', TEST_USER]).status !== 0) {
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', TEST_USER]);
  }
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Runs an ES module `source` with Node as `user` (or as the current user when null) in `cwd`; returns
 * its stdout. Throws with its stderr when it exits non-zero.
 */
export function runNodeAs(user: UserIds | null, source: string, cwd: string): string {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd,
    encoding: 'utf8',
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd },
  });
  if (result.status !== 0) throw new Error(`node as ${user ? TEST_USER : 'self'} failed: ${result.stderr}`);
  return result.stdout;
}
