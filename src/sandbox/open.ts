/** The run's sandbox from its setting: null when the setting is off, an error when it cannot be had. */
import { err, ok, type Result } from '../lang/result.js';
import { detectSandbox } from './detect.js';
import { passedValues } from './env.js';
import type { Sandbox } from './sandbox.js';
import type { SandboxSetting } from './setting.js';

/** `env` is Colony's environment: where bwrap is looked up and where passed variables get their values. */
export async function openSandbox(
  setting: SandboxSetting | undefined,
  env: NodeJS.ProcessEnv,
): Promise<Result<Sandbox | null>> {
  if (!setting?.enabled) return ok(null);
  const bwrap = await detectSandbox(env);
  if (!bwrap.ok) return err(bwrap.error);
  return ok({
    bwrap: bwrap.value,
    network: setting.network,
    writable: true,
    passEnv: passedValues(env, setting.passEnv),
  });
}
