/**
 * The run's sandbox setting: what `--sandbox`, `--allow-network` and `--pass-env` asked for, resolved
 * once when the run is created and kept in the run spec, so a resumed run is contained as it started.
 */
import { err, ok, type Result } from '../lang/result.js';
import { detectSandbox } from './detect.js';

/** The run's setting as the run spec keeps it (see RunSpec.sandbox). */
export interface SandboxSetting {
  /** false: agents' commands run uncontained (`--sandbox off`, or `auto` without bubblewrap). */
  enabled: boolean;
  /** Agents' commands and the checks may use the network (`--allow-network`; setup may on the base tree). */
  network: boolean;
  /** Names of variables passed into the sandbox (values are read when the run executes). */
  passEnv: string[];
  /** Why the sandbox is off, when it is. */
  offReason?: string;
}

/** What `--sandbox` accepts: `on` (the default) fails without bubblewrap, `auto` then runs uncontained and says so. */
export const SANDBOX_MODES = ['on', 'auto', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

export interface SandboxRequest {
  mode: SandboxMode;
  network: boolean;
  passEnv: readonly string[];
}

/**
 * `on` needs a working sandbox (else the error naming the package and `--sandbox off`); `auto` falls
 * back to off with the reason recorded (shown by the run summary and the dashboard, never silently).
 */
export async function resolveSandboxSetting(
  request: SandboxRequest,
  env: NodeJS.ProcessEnv,
): Promise<Result<SandboxSetting>> {
  const base = { network: request.network, passEnv: [...request.passEnv] };
  if (request.mode === 'off') return ok({ enabled: false, ...base, offReason: '--sandbox off' });
  const available = await detectSandbox(env);
  if (available.ok) return ok({ enabled: true, ...base });
  if (request.mode === 'on') return err(available.error);
  return ok({ enabled: false, ...base, offReason: `--sandbox auto: ${available.error}` });
}
