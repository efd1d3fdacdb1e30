/** `--sandbox`, `--allow-network` and `--pass-env`: checked the same way by every command that starts a run. */
import { isEnvName, SANDBOX_MODES, type SandboxMode } from '../sandbox/index.js';
import { UsageError } from './args.js';

export const SANDBOX_OPTIONS = {
  sandbox: { type: 'string' },
  'allow-network': { type: 'boolean' },
  'pass-env': { type: 'string', multiple: true },
} as const;

export const SANDBOX_HELP = `  --sandbox MODE       on (default): every command an agent starts, and setup, verify and merge checks,
                       runs in a bubblewrap sandbox that sees only its own checkout; auto: uncontained
                       where bubblewrap is missing; off: uncontained (the summary warns); docs/sandbox.md
  --allow-network      the sandbox shares your network (default: none; setup has it on the base tree)
  --pass-env NAME      pass this environment variable into the sandbox (repeatable)`;

export function sandboxFlags(
  command: string,
  values: { sandbox?: string; 'allow-network'?: boolean; 'pass-env'?: string[] },
) {
  const mode = values.sandbox;
  if (mode !== undefined && !(SANDBOX_MODES as readonly string[]).includes(mode))
    throw new UsageError(`${command}: --sandbox must be ${SANDBOX_MODES.join(', ')}, got "${mode}"`);
  for (const name of values['pass-env'] ?? [])
    if (!isEnvName(name)) throw new UsageError(`${command}: --pass-env needs a variable name, got "${name}"`);
  return {
    sandbox: mode as SandboxMode | undefined,
    allowNetwork: values['allow-network'],
    passEnv: values['pass-env'],
  };
}
