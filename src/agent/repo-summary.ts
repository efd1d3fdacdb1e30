/**
 * What an agent is told about the repository up front: its own agent instructions (AGENTS.md,
 * CLAUDE.md), a file tree and the head of its README.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const INSTRUCTION_FILES = ['AGENTS.md', 'CLAUDE.md'];
const MAX_TREE_FILES = 200;
const README_HEAD_LINES = 30;
const MAX_INSTRUCTIONS_CHARS = 8_000;

export interface RepoSummary {
  instructions: Array<{ file: string; text: string }>;
  tree: string[];
  treeTruncated: number;
  readmeHead: string | null;
}

export function summariseRepo(worktree: string): RepoSummary {
  const instructions = INSTRUCTION_FILES.filter((file) => existsSync(join(worktree, file))).map((file) => ({
    file,
    text: readFileSync(join(worktree, file), 'utf8').slice(0, MAX_INSTRUCTIONS_CHARS),
  }));
  const files = listTrackedFiles(worktree);
  const readme = ['README.md', 'README', 'readme.md'].find((file) => existsSync(join(worktree, file)));
  const readmeHead = readme
    ? readFileSync(join(worktree, readme), 'utf8').split('\n').slice(0, README_HEAD_LINES).join('\n')
    : null;
  return {
    instructions,
    tree: files.slice(0, MAX_TREE_FILES),
    treeTruncated: Math.max(0, files.length - MAX_TREE_FILES),
    readmeHead,
  };
}

function listTrackedFiles(worktree: string): string[] {
  try {
    const out = execFileSync('git', ['ls-files'], {
      cwd: worktree,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    return out.split('\n').filter(Boolean).sort();
  } catch {
    return [];
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
