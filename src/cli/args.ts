/** Flag parsing on node:util parseArgs, with usage errors as data (one clear line, exit code 2). */
import { type ParseArgsConfig, parseArgs } from 'node:util';

export class UsageError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseFlags<O extends Options>(argv: string[], options: O, command: string) {
  try {
    return parseArgs({ args: negativeValues(argv, options), options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${command}: ${oneLine(err as Error, argv)} (see colony ${command} --help)`);
  }
}

/** A negative number: `-3`, `-0.5`, `-.5`. */
const NEGATIVE_NUMBER = /^-(\d|\.\d)/;

/**
 * `--max-steps -3`: parseArgs reads `-3` as an option and calls the value ambiguous (three lines
 * about it). A negative number after a flag that takes a value is that value (`--max-steps=-3`), so
 * the flag's own check refuses it in its words.
 */
function negativeValues(argv: readonly string[], options: Options): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    const takesValue = arg.startsWith('--') && !arg.includes('=') && options[arg.slice(2)]?.type === 'string';
    if (takesValue && next !== undefined && NEGATIVE_NUMBER.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
}

/** parseArgs' message in one line (some are three). */
function oneLine(err: Error, argv: readonly string[]): string {
  const ambiguous = /^Option '(--[^']+)' argument is ambiguous/.exec(err.message);
  if (ambiguous?.[1]) {
    const flag = ambiguous[1];
    const value = argv[argv.indexOf(flag) + 1] ?? 'VALUE';
    return `${flag} needs a value; one starting with a dash is written ${flag}=${value}`;
  }
  return err.message.replace(/\. To specify a positional argument.*$/s, '').replace(/\s*\n\s*/g, ' ');
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
