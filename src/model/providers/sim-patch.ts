/**
 * The simulated agent's knowledge of a fix: a `git diff` (the eval task's reference.patch) read as
 * per-file edits. Each hunk becomes one `edit {old, new}` (context and removed lines → context and
 * added lines), a new file one `write`. Deleted files and binary patches are left out.
 */

export interface SimHunk {
  old: string;
  new: string;
}

export interface SimFilePatch {
  path: string;
  /** The file does not exist at the start: written whole (`content`), no hunks. */
  created: boolean;
  content: string;
  hunks: SimHunk[];
}

/** Parses unified diff text into file patches, in the diff's order. */
export function parseSimPatch(text: string): SimFilePatch[] {
  const files: SimFilePatch[] = [];
  let file: SimFilePatch | null = null;
  let hunk: { old: string[]; new: string[] } | null = null;
  let deleted = false;
  const closeHunk = () => {
    if (file && hunk) file.hunks.push({ old: hunk.old.join('\n'), new: hunk.new.join('\n') });
    hunk = null;
  };
  const closeFile = () => {
    closeHunk();
    if (file && !deleted) {
      if (file.created) file.content = `${file.hunks.map((h) => h.new).join('\n')}\n`;
      if (file.created) file.hunks = [];
      files.push(file);
    }
    file = null;
    deleted = false;
  };
  for (const line of text.split('\n')) {
    if (line.startsWith('diff --git ')) {
      closeFile();
      const path = / b\/(.+)$/.exec(line)?.[1] ?? '';
      file = { path, created: false, content: '', hunks: [] };
      continue;
    }
    if (!file) continue;
    const current: SimFilePatch = file;
    if (line.startsWith('new file mode')) current.created = true;
    else if (line.startsWith('deleted file mode')) deleted = true;
    else if (line.startsWith('+++ ')) {
      if (line !== '+++ /dev/null') current.path = line.slice(4).replace(/^b\//, '');
    } else if (line.startsWith('--- ')) {
      if (line === '--- /dev/null') current.created = true;
    } else if (line.startsWith('@@')) {
      closeHunk();
      hunk = { old: [], new: [] };
    } else if (hunk) {
      const h: { old: string[]; new: string[] } = hunk;
      const body = line.slice(1);
      if (line.startsWith(' ')) {
        h.old.push(body);
        h.new.push(body);
      } else if (line.startsWith('-')) h.old.push(body);
      else if (line.startsWith('+')) h.new.push(body);
      // "\ No newline at end of file" and the trailing empty line change nothing an edit needs.
    }
  }
  closeFile();
  return files.filter((f) => f.path !== '' && (f.created || f.hunks.length > 0));
}
