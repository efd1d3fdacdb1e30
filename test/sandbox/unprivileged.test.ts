/**
 * The sandbox as an unprivileged user (bubblewrap without root: user namespaces). As root the check
 * runs in a child process as the test user; as any other user it runs as that user.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runNodeAs, unprivilegedUser } from '../helpers/unprivileged.js';
import { ensureBuilt, REPO_ROOT, tempDirs } from './helpers.js';

const built = (file: string) => JSON.stringify(pathToFileURL(path.join(REPO_ROOT, 'dist/src', file)).href);

describe('the sandbox as an unprivileged user', () => {
  const dirs = tempDirs();
  beforeAll(() => ensureBuilt(['src/agent/tools', 'src/sandbox']), 120_000);
  afterEach(() => dirs.cleanup());

  it('keeps its files, the state folder and the environment out of reach', () => {
    const user = unprivilegedUser();
    const checkout = dirs.make('colony-sandbox-user-checkout-');
    const state = dirs.make('colony-sandbox-user-state-');
    // Readable and writable by the user outside the sandbox: only the sandbox stands in the way.
    writeFileSync(path.join(state, 'server-token'), 'user-visible-token\n');
    chmodSync(state, 0o777);
    chmodSync(path.join(state, 'server-token'), 0o644);
    mkdirSync(path.join(state, 'sub'));
    if (user) {
      for (const dir of [checkout, state, path.join(state, 'sub')]) chownSync(dir, user.uid, user.gid);
    }
    const out = runNodeAs(
      user,
      `import { createBashTool } from ${built('agent/tools/bash.js')};
       import { detectSandbox } from ${built('sandbox/detect.js')};
       process.env.ANTHROPIC_API_KEY = 'sk-ant-user-secret';
       const found = await detectSandbox();
       if (!found.ok) throw new Error(found.error);
       const sandbox = { bwrap: found.value, network: false, writable: true, passEnv: {} };
       const plain = await createBashTool(${JSON.stringify(checkout)}).run(
         { command: 'cat ${state}/server-token' }, {});
       const boxed = await createBashTool(${JSON.stringify(checkout)}, { sandbox }).run(
         { command: "id -u; cat ${state}/server-token; echo x > ${state}/sub/f; echo ok > here; env; tr '\\\\0' '\\\\n' < /proc/1/environ" },
         {});
       console.log(JSON.stringify({ plain: plain.content, boxed: boxed.content }));`,
      checkout,
    );
    const { plain, boxed } = JSON.parse(out) as { plain: string; boxed: string };
    expect(plain).toContain('user-visible-token');
    expect(boxed).not.toContain('user-visible-token');
    expect(boxed).not.toContain('sk-ant-user-secret');
    expect(boxed).toMatch(/No such file or directory/);
    expect(boxed.split('\n')[0]).toBe(String(user ? user.uid : process.getuid?.()));
    expect(existsSync(path.join(state, 'sub', 'f'))).toBe(false);
    expect(existsSync(path.join(checkout, 'here'))).toBe(true);
  }, 60_000);
});
