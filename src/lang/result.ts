/**
 * Errors as data at boundaries: a function that can fail in an expected way returns a Result, never
 * throws. `E` is a readable message by default; a boundary with structured errors names its own.
 */
export type Result<T, E = string> = { ok: true; value: T } | { ok: false; error: E };

export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
