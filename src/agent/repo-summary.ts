/**
 * What an agent is told about the repository up front: its own agent instructions (AGENTS.md,
 * CLAUDE.md), a file tree and the head of its README. Every file here is hostile input: each is read
 * through repo-file.ts (never through a link out of the checkout or into `.git`, never a FIFO or a
 * device), and the tree comes from a git that runs nothing the repository's config names.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { describeUnread, type RepoFile, readRepoFile } from './repo-file.js';

const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'];
const README_FILES = ['README.md', 'README', 'readme.md'];
const MAX_TREE_FILES = 200;
const README_HEAD_LINES = 30;
const MAX_INSTRUCTIONS_CHARS = 8_000;
/** Bytes read of a file at most: enough for the characters or lines kept of it. */
const MAX_INSTRUCTIONS_BYTES = MAX_INSTRUCTIONS_CHARS * 4;
const README_MAX_BYTES = 64 * 1024;
const LS_FILES_TIMEOUT_MS = 30_000;

export interface RepoSummary {
  instructions: Array<{ file: string; text: string }>;
  tree: string[];
  treeTruncated: number;
  readmeHead: string | null;
}

export function summariseRepo(worktree: string): RepoSummary {
  const instructions = INSTRUCTION_FILES.flatMap((file) => {
    const read = readRepoFile(worktree, file, MAX_INSTRUCTIONS_BYTES);
    return read ? [{ file, text: textOf(read).slice(0, MAX_INSTRUCTIONS_CHARS) }] : [];
  });
  const files = listTrackedFiles(worktree);
  let readmeHead: string | null = null;
  for (const file of README_FILES) {
    const read = readRepoFile(worktree, file, README_MAX_BYTES);
    if (!read) continue;
    readmeHead = textOf(read).split('\n').slice(0, README_HEAD_LINES).join('\n');
    break;
  }
  return {
    instructions,
    tree: files.slice(0, MAX_TREE_FILES),
    treeTruncated: Math.max(0, files.length - MAX_TREE_FILES),
    readmeHead,
  };
}

function textOf(file: RepoFile): string {
  return file.kind === 'text' ? file.text : describeUnread(file);
}

/**
 * Config no repository may override in this git call (GIT_CONFIG_* ranks above every config file):
 * `git ls-files` runs `core.fsmonitor` (a command) when the repository's config names one.
 */
const HARDENED_CONFIG: ReadonlyArray<[string, string]> = [
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.quotePath', 'true'],
];

/**
 * The tracked files, from git run with none of the user's or the system's config and nothing of
 * Colony's environment but PATH (agent/ sits below workspace/ and its git runner, so this one call is
 * hardened here). A `.git` that is not a plain file or folder (a link, a FIFO) is not given to git.
 */
function listTrackedFiles(worktree: string): string[] {
  const dotGit = lstatOrNull(join(worktree, '.git'));
  if (!dotGit || !(dotGit.isFile() || dotGit.isDirectory())) return [];
  const config: Record<string, string> = { GIT_CONFIG_COUNT: String(HARDENED_CONFIG.length) };
  HARDENED_CONFIG.forEach(([key, value], i) => {
    config[`GIT_CONFIG_KEY_${i}`] = key;
    config[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  try {
    const out = execFileSync('git', ['ls-files'], {
      cwd: worktree,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: LS_FILES_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_TERMINAL_PROMPT: '0',
        GIT_NO_REPLACE_OBJECTS: '1',
        LC_ALL: 'C',
        ...config,
      },
    });
    return out.split('\n').filter(Boolean).sort();
  } catch {
    return [];
  }
}

function lstatOrNull(file: string) {
  try {
    return lstatSync(file);
  } catch {
    return null;
  }
}

export function renderRepoSummary(summary: RepoSummary): string {
  const parts: string[] = [];
  for (const { file, text } of summary.instructions) {
    parts.push(`## Repository instructions (${file})\n${text.trim()}`);
  }
  const more = summary.treeTruncated > 0 ? `\n… and ${summary.treeTruncated} more files` : '';
  parts.push(`## Files\n${summary.tree.join('\n')}${more}`);
  if (summary.readmeHead) parts.push(`## README (head)\n${summary.readmeHead.trim()}`);
  return parts.join('\n\n');
}
