/**
 * The run's containment as summaries and the dashboard show it, from run.started's config (the run
 * spec's `sandbox`, src/sandbox/setting.ts). A spec without it (a run from before the sandbox, or one
 * built by hand) ran uncontained, and is shown so.
 */

export interface SandboxView {
  /** Agents' commands, setup and checks ran in bubblewrap. */
  enabled: boolean;
  /** They could use the network (always, when not contained). */
  network: boolean;
  /** Variables passed in by name. */
  passEnv: string[];
  /** Why it is off, when it is. */
  offReason: string | null;
}

/** null before run.started (nothing known yet). */
export function sandboxView(config: Record<string, unknown> | undefined): SandboxView | null {
  if (!config || Object.keys(config).length === 0) return null;
  const s = config.sandbox;
  if (!s || typeof s !== 'object') {
    return { enabled: false, network: true, passEnv: [], offReason: 'the run has no sandbox setting' };
  }
  const { enabled, network, passEnv, offReason } = s as Record<string, unknown>;
  const on = enabled === true;
  return {
    enabled: on,
    network: !on || network === true,
    passEnv: Array.isArray(passEnv) ? passEnv.filter((n): n is string => typeof n === 'string') : [],
    offReason: on ? null : typeof offReason === 'string' ? offReason : '--sandbox off',
  };
}

/** One line for a person: what contained the run's commands, or the warning that nothing did. */
export function sandboxLine(view: SandboxView): string {
  if (!view.enabled)
    return `warning: no sandbox (${view.offReason}): agents' commands ran uncontained, as your user, with your files and environment`;
  const passed = view.passEnv.length > 0 ? `, passed ${view.passEnv.join(', ')}` : '';
  return `sandbox: bubblewrap, ${view.network ? 'network allowed' : 'no network'}${passed}`;
}
