/** Hub main moved outside the integration queue is put back, and the foreign commit is kept. */
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createHub } from '../../../src/workspace/hub/hub.js';
import { guardMain, movedMainWarning } from '../../../src/workspace/integration/main-guard.js';
import { sh, tempDir, write } from '../helpers.js';

describe('guardMain', () => {
  let cleanup = () => {};
  afterEach(() => cleanup());

  async function hubWithForeignCommit() {
    const made = tempDir('colony-main-guard-');
    cleanup = made.cleanup;
    const user = path.join(made.dir, 'user');
    sh(made.dir, 'init', '--quiet', '--initial-branch=main', user);
    write(user, 'a.txt', 'one\n');
    sh(user, 'add', '-A');
    sh(user, 'commit', '--quiet', '-m', 'base');
    const base = sh(user, 'rev-parse', 'HEAD');
    write(user, 'a.txt', 'forged\n');
    sh(user, 'commit', '--quiet', '-am', 'not through the queue');
    const foreign = sh(user, 'rev-parse', 'HEAD');
    const hub = path.join(made.dir, 'hub.git');
    const created = await createHub(hub, user, base);
    if (!created.ok) throw new Error(created.error);
    return { hub, base, foreign };
  }

  it('leaves main alone when it is where the queue left it', async () => {
    const { hub, base } = await hubWithForeignCommit();
    expect(await guardMain(hub, base)).toEqual({ ok: true, value: { moved: false, main: base } });
    expect(sh(hub, 'rev-parse', 'main')).toBe(base);
  });

  it('keeps a main the queue landed but did not log yet (its refs/colony/landed ref points at it)', async () => {
    const { hub, base, foreign } = await hubWithForeignCommit();
    sh(hub, 'update-ref', 'refs/heads/main', foreign);
    sh(hub, 'update-ref', 'refs/colony/landed/7', foreign);
    expect(await guardMain(hub, base)).toEqual({ ok: true, value: { moved: false, main: foreign } });
    expect(sh(hub, 'rev-parse', 'main')).toBe(foreign);
  });

  it('puts a moved main back and pins what it found', async () => {
    const { hub, base, foreign } = await hubWithForeignCommit();
    sh(hub, 'update-ref', 'refs/heads/main', foreign);
    const check = await guardMain(hub, base);
    expect(check).toEqual({ ok: true, value: { moved: true, main: base, found: foreign } });
    expect(sh(hub, 'rev-parse', 'main')).toBe(base);
    expect(sh(hub, 'rev-parse', `refs/colony/moved-outside/${foreign}`)).toBe(foreign);
    if (check.ok && check.value.moved) expect(movedMainWarning(check.value)).toContain(foreign);
  });
});
