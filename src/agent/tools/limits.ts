/**
 * Limits the kernel puts on what a tool hands it, checked before the call so the model reads what
 * is wrong (instead of ENAMETOOLONG or E2BIG from deep inside Node, with the whole argument echoed).
 */

/** Linux PATH_MAX: no longer path names a file. */
export const PATH_MAX_BYTES = 4096;
/** Linux MAX_ARG_STRLEN (32 pages) minus the terminating NUL: the longest single argv string. */
export const ARG_MAX_BYTES = 128 * 1024 - 1;

/** Why `path` cannot name a file, or null. */
export function pathProblem(path: string | undefined): string | null {
  if (path === undefined) return null;
  const bytes = Buffer.byteLength(path, 'utf8');
  if (bytes <= PATH_MAX_BYTES) return null;
  return `path is ${bytes} bytes long; a path can have at most ${PATH_MAX_BYTES} bytes`;
}

/** Why `value` cannot be passed to a program as one argument, or null. `what`: "command", "pattern". */
export function argumentProblem(what: string, value: string, hint: string): string | null {
  if (value.includes('\0')) return `${what} contains a NUL byte, which a command line cannot carry`;
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes <= ARG_MAX_BYTES) return null;
  return `${what} is ${bytes} bytes long; a program argument can have at most ${ARG_MAX_BYTES} bytes (${hint})`;
}
