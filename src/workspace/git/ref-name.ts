/**
 * Git's branch-name rules (git check-ref-format) checked in-process, saving a git call per
 * worktree: no `..`, `//`, `@{`, control characters, space or any of `~^:?*[\`; no component
 * starting with `.` or ending with `.lock`; no leading `-` or `/`, no trailing `/` or `.`.
 */
export function isValidBranchName(name: string): boolean {
  if (name === '' || name === '@' || name.startsWith('-') || name.startsWith('/')) return false;
  if (name.endsWith('/') || name.endsWith('.')) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we reject
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => !part.startsWith('.') && !part.endsWith('.lock'));
}
