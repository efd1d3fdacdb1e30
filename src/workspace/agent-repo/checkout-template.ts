/**
 * What a new lazy checkout (lazy-checkout.ts) of a commit is made of: its index (every path, all but
 * the top-level files marked skip-worktree) and its top-level files. It is the same for every agent
 * that starts on that commit, so the first one's `git reset --hard` is kept and the next ones are
 * written from it: no git process, where a reset cost ~8 ms of CPU at 1,000 peers (it reads the
 * whole tree, looks for every skipped path on disk and writes the index).
 *
 * The copied index carries the first checkout's file times and inode numbers: git finds them
 * different from the new files', compares the content, finds it the same and refreshes the entry on
 * its next index write. A top-level entry that is not a plain file or symlink (a submodule's
 * folder), or more than MAX_TEMPLATE_BYTES of files, and the commit always gets a reset instead.
 */
import { chmod, lstat, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Top-level files kept for a template at most (bytes): beyond it, each checkout is a reset. */
export const MAX_TEMPLATE_BYTES = 1024 * 1024;
/** Commits kept: new agents start on main, which moves as merges land. */
const TEMPLATES_KEPT = 4;

type TopLevelEntry =
  | { name: string; kind: 'file'; mode: number; content: Buffer }
  | { name: string; kind: 'symlink'; target: string };

interface Template {
  index: Buffer;
  entries: TopLevelEntry[];
}

/** Templates by start commit, the newest few (this process only: a template is only a shortcut). */
export class CheckoutTemplates {
  private readonly byCommit = new Map<string, Template | 'none'>();

  /** Writes the checkout and index of a new lazy repository from its commit's template; false if none. */
  async write(commit: string, checkout: string, indexFile: string): Promise<boolean> {
    const template = this.byCommit.get(commit);
    if (template === undefined || template === 'none') return false;
    for (const entry of template.entries) {
      const file = path.join(checkout, entry.name);
      if (entry.kind === 'symlink') await symlink(entry.target, file);
      else {
        await writeFile(file, entry.content);
        // writeFile's mode is masked by the umask: set it as the first checkout had it.
        await chmod(file, entry.mode);
      }
    }
    // Last: an index that names files not written yet would be read as their deletion.
    await writeFile(indexFile, template.index);
    return true;
  }

  /** Keeps a just-reset lazy checkout of `commit` as its template (or that it cannot be one). */
  async capture(commit: string, checkout: string, indexFile: string): Promise<void> {
    if (this.byCommit.has(commit)) return;
    this.remember(commit, (await read(checkout, indexFile)) ?? 'none');
  }

  private remember(commit: string, template: Template | 'none'): void {
    this.byCommit.set(commit, template);
    for (const old of this.byCommit.keys()) {
      if (this.byCommit.size <= TEMPLATES_KEPT) break;
      this.byCommit.delete(old);
    }
  }
}

async function read(checkout: string, indexFile: string): Promise<Template | null> {
  try {
    const entries: TopLevelEntry[] = [];
    let bytes = 0;
    for (const name of await readdir(checkout)) {
      const file = path.join(checkout, name);
      const stat = await lstat(file);
      if (stat.isSymbolicLink()) entries.push({ name, kind: 'symlink', target: await readlink(file) });
      else if (stat.isFile()) {
        bytes += stat.size;
        if (bytes > MAX_TEMPLATE_BYTES) return null;
        entries.push({ name, kind: 'file', mode: stat.mode & 0o777, content: await readFile(file) });
      } else return null;
    }
    return { index: await readFile(indexFile), entries };
  } catch {
    return null;
  }
}
