import type { EventLog } from '../../store/types.js';
import { git } from '../../workspace/git/git.js';

export interface Ownership {
  /** file → owning agent */
  owners: Map<string, string>;
  /** The agent of the last landing (null when nothing landed). */
  lastLander: string | null;
}

export async function landedOwnership(log: EventLog, runId: string, hubPath: string): Promise<Ownership> {
  const landed = await log.read(runId, { kinds: ['merge.landed'] });
  const owners = new Map<string, string>();
  let lastLander: string | null = null;
  for (const event of landed) {
    if (!event.agent) continue;
    // A landed commit has one parent (the main it landed on), so diff-tree lists exactly its files.
    const files = await git(['diff-tree', '--no-commit-id', '--name-only', '-r', event.data.commit], {
      cwd: hubPath,
    });
    if (!files.ok) continue;
    for (const file of files.stdout.split('\n').filter((f) => f !== '')) owners.set(file, event.agent);
    lastLander = event.agent;
  }
  return { owners, lastLander };
}

/** The owners a failure goes to, each with the files of theirs the output names (or all theirs). */
export function ownersOf(
  output: string,
  ownership: Ownership,
): Array<{ owner: string | null; files: string[] }> {
  const named = new Map<string, string[]>();
  for (const [file, owner] of ownership.owners) {
    if (!mentions(output, file)) continue;
    named.set(owner, [...(named.get(owner) ?? []), file]);
  }
  if (named.size > 0) return [...named].map(([owner, files]) => ({ owner, files }));
  const last = ownership.lastLander;
  if (last === null) return [{ owner: null, files: [] }];
  const files = [...ownership.owners].filter(([, owner]) => owner === last).map(([file]) => file);
  return [{ owner: last, files }];
}

/** The path itself, or its base name as a whole word (test runners often print only that). */
function mentions(output: string, file: string): boolean {
  if (output.includes(file)) return true;
  const base = file.split('/').pop() ?? file;
  return new RegExp(`(^|[^\\w.-])${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w-])`).test(output);
}
