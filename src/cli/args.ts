/** Flag parsing on node:util parseArgs, with usage errors as data (one clear line, exit code 2). */
import { type ParseArgsConfig, parseArgs } from 'node:util';

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseFlags<O extends Options>(argv: string[], options: O, command: string) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    const message = (err as Error).message.replace(/\. To specify a positional argument.*$/s, '');
    throw new UsageError(`${command}: ${message} (see colony ${command} --help)`);
  }
}

export function numberFlag(
  value: string | undefined,
  name: string,
  kind: 'int' | 'float' = 'float',
): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0 || (kind === 'int' && !Number.isInteger(parsed))) {
    throw new UsageError(
      `--${name} must be a positive ${kind === 'int' ? 'integer' : 'number'}, got "${value}"`,
    );
  }
  return parsed;
}

export function onePositional(positionals: string[], what: string, command: string): string {
  const [value, extra] = positionals;
  if (!value)
    throw new UsageError(`${command}: missing ${what} (usage: colony ${command} ${what.toUpperCase()})`);
  if (extra) throw new UsageError(`${command}: unexpected argument "${extra}"`);
  return value;
}
