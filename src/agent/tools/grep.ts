/**
 * `grep {pattern, path?}`: extended-regex search, recursive, skipping .git and node_modules.
 * Runs GNU grep with an argument array (never a shell string) on the checked real path (paths.ts: a
 * path leading outside or into a `.git` is refused); symlinks inside the tree are not followed (`-r`,
 * not `-R`), so a search cannot leave the worktree, and `.git` — folders and files, a nested
 * repository's too — is never searched. FIFOs, sockets and devices are
 * never read (one with no writer would block grep until the time-out), and an endless output line
 * is cut as it streams in, so a huge matching line costs no memory here.
 */
import { spawn } from 'node:child_process';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, errorMessage } from '../../tool/define.js';
import { fail, ok, type Tool, type ToolResult } from '../../tool/types.js';
import { resolveInside } from '../paths.js';
import { describeKind } from './file-kind.js';
import { argumentProblem, pathProblem } from './limits.js';

export const GREP_MAX_RESULTS = 200;
export const GREP_MAX_LINE_CHARS = 300;
const GREP_TIMEOUT_MS = 30_000;
/** Characters of one output line kept (file name, line number and text); the rest is dropped unread. */
const GREP_MAX_RAW_LINE = 16 * 1024;

const schema = z.object({
  pattern: z.string().min(1).describe('Extended regular expression (grep -E syntax).'),
  path: z.string().optional().describe('File or folder to search, relative to the worktree. Default: all.'),
});

export function createGrepTool(root: string): Tool {
  return defineTool({
    name: 'grep',
    description:
      'Search file contents with an extended regular expression (grep -E), recursively, skipping .git, ' +
      `node_modules and binary files. Returns "file:line: text" lines, at most ${GREP_MAX_RESULTS}.`,
    schema,
    // The whole tree: a search reads every file of it.
    touches: () => 'all',
    mutates: false,
    async run(args) {
      const problem =
        pathProblem(args.path) ??
        argumentProblem('pattern', args.pattern, 'search for a shorter part of the text');
      if (problem) return fail(problem);
      const resolved = resolveInside(root, args.path ?? '.');
      if (!resolved.ok) return fail(resolved.error);
      const info = await lstat(resolved.real).catch(() => null);
      if (info && !info.isFile() && !info.isDirectory()) {
        return fail(
          `${resolved.rel} is ${describeKind(info)}, not a regular file or folder; grep searches files and folders`,
        );
      }
      const grepArgs = [
        '-rnIHZE',
        '--devices=skip',
        '--exclude-dir=.git',
        '--exclude=.git',
        '--exclude-dir=node_modules',
        '-e',
        args.pattern,
      ];
      // With no operand, recursive grep searches `.` and prints names without a `./` prefix. The
      // operand is the real path (relative to the real root): grep has no link of it to follow.
      const realRel = path.relative(resolved.realRoot, resolved.real);
      if (realRel !== '') grepArgs.push('--', realRel);
      return runGrep(resolved.realRoot, grepArgs);
    },
  });
}

function runGrep(root: string, args: string[]): Promise<ToolResult> {
  return new Promise((resolve) => {
    const child = spawn('grep', args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const results: string[] = [];
    let pending = '';
    let stderr = '';
    let truncated = false;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, GREP_TIMEOUT_MS);
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    /** The current line is longer than GREP_MAX_RAW_LINE: drop the rest of it. */
    let skipping = false;
    const take = (line: string): boolean => {
      if (results.length >= GREP_MAX_RESULTS) {
        truncated = true;
        child.kill('SIGKILL');
        return false;
      }
      results.push(formatMatch(line));
      return true;
    };
    child.stdout.on('data', (chunk: string) => {
      let from = 0;
      while (!truncated && from < chunk.length) {
        const newline = chunk.indexOf('\n', from);
        const end = newline < 0 ? chunk.length : newline;
        if (!skipping) {
          pending += chunk.slice(from, Math.min(end, from + GREP_MAX_RAW_LINE - pending.length));
          if (pending.length >= GREP_MAX_RAW_LINE) skipping = true;
        }
        if (newline < 0) return;
        const line = pending;
        pending = '';
        skipping = false;
        from = newline + 1;
        if (!take(line)) return;
      }
    });
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve(fail(`could not run grep: ${errorMessage(error)}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (!truncated && pending !== '' && results.length < GREP_MAX_RESULTS)
        results.push(formatMatch(pending));
      // grep exits 2 on a bad pattern, but also on an unreadable file among matches.
      if (code === 2 && results.length === 0) {
        resolve(fail(`grep error: ${stderr.trim() || 'unknown error'}`));
        return;
      }
      const late = timedOut ? `\n(search stopped after ${GREP_TIMEOUT_MS / 1000} s; narrow the path)` : '';
      if (results.length === 0) {
        if (timedOut) {
          resolve(fail(`grep timed out after ${GREP_TIMEOUT_MS / 1000} s; narrow the path or the pattern`));
          return;
        }
        resolve(ok(code === 1 ? 'No matches.' : `No matches.${stderr ? `\n${stderr.trim()}` : ''}`));
        return;
      }
      const note = truncated
        ? `\n(results capped at ${GREP_MAX_RESULTS}; narrow the pattern or the path)`
        : '';
      resolve(ok(results.join('\n') + note + late));
    });
  });
}

/** `file\0line:text` (grep -Z) → `file:line: text`, long lines cut. */
function formatMatch(raw: string): string {
  const nul = raw.indexOf('\0');
  if (nul < 0) return raw.slice(0, GREP_MAX_LINE_CHARS);
  const file = raw.slice(0, nul);
  const rest = raw.slice(nul + 1);
  const colon = rest.indexOf(':');
  const line = rest.slice(0, colon);
  let text = rest.slice(colon + 1);
  if (text.length > GREP_MAX_LINE_CHARS) text = `${text.slice(0, GREP_MAX_LINE_CHARS)}…`;
  return `${file}:${line}: ${text}`;
}
