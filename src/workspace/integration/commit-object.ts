/**
 * Commit objects written by Colony itself, without a `git commit-tree` process per commit: the
 * integration queue makes one commit per merge request, a chain of up to 128 per candidate. A loose
 * object is `zlib(deflate("commit <size>\0" + body))` stored under its SHA-1 in objects/xx/…, written
 * to a temporary file and renamed into place (a reader sees it whole or not at all). Only for SHA-1
 * repositories; `objectFormat` says which a hub is, and the caller falls back to commit-tree otherwise.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { git } from '../git.js';

export interface Person {
  name: string;
  email: string;
}

export interface CommitFields {
  tree: string;
  parent: string;
  author: Person;
  committer: Person;
  /** Seconds since the epoch (UTC). */
  time: number;
  /** The message; a final newline is added as `git commit-tree -m` does. */
  message: string;
}

/** The commit's body in git's canonical form (what `git cat-file commit` prints). */
export function commitBody(fields: CommitFields): string {
  const stamp = `${fields.time} +0000`;
  const who = (p: Person) => `${p.name} <${p.email}> ${stamp}`;
  const message = fields.message.endsWith('\n') ? fields.message : `${fields.message}\n`;
  return `tree ${fields.tree}\nparent ${fields.parent}\nauthor ${who(fields.author)}\ncommitter ${who(fields.committer)}\n\n${message}`;
}

/** Writes the commit into the repository's object store and returns its id. */
export async function writeCommitObject(gitDir: string, fields: CommitFields): Promise<string> {
  const body = Buffer.from(commitBody(fields), 'utf8');
  const object = Buffer.concat([Buffer.from(`commit ${body.length}\0`, 'utf8'), body]);
  const id = createHash('sha1').update(object).digest('hex');
  const dir = path.join(gitDir, 'objects', id.slice(0, 2));
  const file = path.join(dir, id.slice(2));
  if (existsSync(file)) return id;
  await mkdir(dir, { recursive: true });
  const temp = path.join(dir, `tmp_obj_colony_${randomBytes(6).toString('hex')}`);
  try {
    await writeFile(temp, deflateSync(object), { mode: 0o444 });
    await rename(temp, file);
  } finally {
    await rm(temp, { force: true });
  }
  return id;
}

const formats = new Map<string, Promise<string>>();

/** The hub's object format (`sha1` or `sha256`), read once per hub. */
export function objectFormat(hub: string): Promise<string> {
  let known = formats.get(hub);
  if (!known) {
    known = git(['rev-parse', '--show-object-format'], { cwd: hub }).then((r) =>
      r.ok ? r.stdout.trim() : 'unknown',
    );
    formats.set(hub, known);
  }
  return known;
}
