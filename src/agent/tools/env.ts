/** The environment agent commands see: the parent's, minus anything that looks like a secret. */

const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)/i;

export function isSecretEnvName(name: string): boolean {
  return SECRET_NAME.test(name) || name === 'COLONY_DATABASE_URL' || name.startsWith('PG');
}

/** `extra` is added after filtering: the caller asked for those explicitly. */
export function agentEnv(
  base: NodeJS.ProcessEnv,
  extra: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value !== undefined && !isSecretEnvName(name)) env[name] = value;
  }
  return { ...env, ...extra };
}
