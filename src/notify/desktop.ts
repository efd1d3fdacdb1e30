/**
 * Desktop notifications through `notify-send`, on a desktop only (DISPLAY or WAYLAND_DISPLAY set and
 * notify-send in an absolute folder of PATH). It is started with an argument array, never through a
 * shell, after `--` (so no text is read as an option), with inert text (desktop-text.ts) and only the
 * variables a desktop session needs: no key of Colony's environment reaches it.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { launch } from '../core/launcher.js';
import { desktopText } from './desktop-text.js';

/** What notify-send needs to reach the session's notification server. */
const SESSION_VARIABLES = [
  'PATH',
  'HOME',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'DBUS_SESSION_BUS_ADDRESS',
  'XDG_RUNTIME_DIR',
  'LANG',
];
const TIMEOUT_MS = 5_000;

/** notify-send's absolute path when this is a desktop that has it, else null. */
export function findNotifySend(env: NodeJS.ProcessEnv): string | null {
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return null;
  for (const dir of (env.PATH ?? '').split(':')) {
    // A relative entry would find a program in whatever folder Colony runs in (a repository's).
    if (!isAbsolute(dir)) continue;
    const path = join(dir, 'notify-send');
    try {
      accessSync(path, constants.X_OK);
      if (statSync(path).isFile()) return path;
    } catch {
      // Not here.
    }
  }
  return null;
}

export async function showDesktop(
  program: string,
  title: string,
  text: string,
  env: NodeJS.ProcessEnv,
): Promise<{ ok: true } | { ok: false; error: string }> {
  const session: Record<string, string> = {};
  for (const name of SESSION_VARIABLES) {
    const value = env[name];
    if (value) session[name] = value;
  }
  const args = ['--app-name=Colony', '--', desktopText(title, 120), desktopText(text, 400)];
  const result = await launch(program, args, { cwd: tmpdir(), env: session, timeoutMs: TIMEOUT_MS });
  if (result.code === 0) return { ok: true };
  if (result.timedOut) return { ok: false, error: `notify-send gave no answer within ${TIMEOUT_MS} ms` };
  return { ok: false, error: `notify-send exited ${result.code ?? result.signal ?? 'abnormally'}` };
}
