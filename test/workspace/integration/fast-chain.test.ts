/**
 * The fast lane (fast-chain.ts) must write exactly the trees `git merge-tree` writes. Seeded random
 * histories — main moving on from the base, agents branching from different points of it with one or
 * two commits, some merging a later main, changes that modify, add, delete, rename, chmod, turn a
 * file into a folder and add symlinks — are built with plumbing; every request the fast lane takes
 * is checked against merge-tree applied one by one on the same chain.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { planFastChain, writeFastChain } from '../../../src/workspace/integration/fast-chain.js';
import { MainChain, mergeBaseOnChain } from '../../../src/workspace/integration/main-chain.js';
import { ObjectReader } from '../../../src/workspace/integration/object-reader.js';
import type { Pending } from '../../../src/workspace/integration/types.js';

const dirs: string[] = [];
const readers: ObjectReader[] = [];
afterAll(() => {
  for (const reader of readers) reader.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const ENV = {
  PATH: process.env.PATH ?? '',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
};

/** A path's entry in a tree: a file or symlink (mode) and its blob. */
type Entry = { mode: string; oid: string };
type Change = { path: string; text?: string; mode?: string; deleted?: boolean };

/** Git's loose-object id and file content (sha1 of type, size and body; zlib-deflated). */
function looseObject(type: string, body: Buffer): { oid: string; data: Buffer } {
  const data = Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body]);
  return { oid: createHash('sha1').update(data).digest('hex'), data };
}

/**
 * A bare repository and commits of any shape in it. Blobs, trees and commits are written as loose
 * objects from here (no process per commit: the random histories below make about 800 commits), with
 * git's semantics of `update-index --index-info` (a path replaces a file or folder in its way) and git's
 * tree order; git itself reads them (merge-tree, the fast lane) and checks the result.
 */
function repo() {
  const dir = mkdtempSync(path.join(tmpdir(), 'colony-fast-chain-'));
  dirs.push(dir);
  const hub = path.join(dir, 'hub.git');
  execFileSync('git', ['init', '-q', '--bare', hub], { env: ENV });
  const git = (args: string[], input?: string, env: Record<string, string> = {}) =>
    execFileSync('git', args, { cwd: hub, env: { ...ENV, ...env }, input, encoding: 'utf8' }).trim();
  const write = (type: string, body: Buffer): string => {
    const { oid, data } = looseObject(type, body);
    const file = path.join(hub, 'objects', oid.slice(0, 2), oid.slice(2));
    if (!existsSync(file)) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, deflateSync(data));
    }
    return oid;
  };
  /** The tree of `entries` (path → blob), its subtrees written first; entries in git's order. */
  const writeTree = (entries: Map<string, Entry>): string => {
    type Node = Map<string, Entry | Node>;
    const root: Node = new Map();
    for (const [file, entry] of entries) {
      const parts = file.split('/');
      let node = root;
      for (const part of parts.slice(0, -1)) {
        let child = node.get(part);
        if (!(child instanceof Map)) {
          child = new Map();
          node.set(part, child);
        }
        node = child;
      }
      node.set(parts.at(-1) as string, entry);
    }
    const writeNode = (node: Node): string => {
      const named = [...node].map(([name, value]) => ({
        name,
        value,
        key: value instanceof Map ? `${name}/` : name,
      }));
      named.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
      const body = named.map(({ name, value }) => {
        const [mode, oid] = value instanceof Map ? ['40000', writeNode(value)] : [value.mode, value.oid];
        return Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(oid, 'hex')]);
      });
      return write('tree', Buffer.concat(body));
    };
    return writeNode(root);
  };
  /** Each commit's tree; its entries, for trees git wrote (merge-tree), read once with ls-tree. */
  const treeOfCommit = new Map<string, string>();
  const entriesOfTree = new Map<string, Map<string, Entry>>();
  const entriesOf = (tree: string): Map<string, Entry> => {
    let entries = entriesOfTree.get(tree);
    if (!entries) {
      entries = new Map();
      for (const line of git(['ls-tree', '-r', '-z', tree]).split('\0').filter(Boolean)) {
        const [info, file] = line.split('\t') as [string, string];
        const [mode, , oid] = info.split(' ') as [string, string, string];
        entries.set(file, { mode, oid });
      }
      entriesOfTree.set(tree, entries);
    }
    return entries;
  };
  /** A commit on `parents` (first parent's tree, or empty; or `tree`) with `changes` applied. */
  const commit = (parents: string[], changes: Change[], tree?: string): string => {
    const startTree = tree ?? (parents[0] ? treeOfCommit.get(parents[0]) : undefined);
    if (parents[0] && startTree === undefined) throw new Error(`not a commit of this fixture: ${parents[0]}`);
    let written = startTree;
    if (changes.length > 0 || written === undefined) {
      const entries = new Map(written === undefined ? [] : entriesOf(written));
      for (const c of changes) {
        if (c.deleted) {
          entries.delete(c.path);
          continue;
        }
        // As update-index --index-info: the new path replaces a file where a folder of it goes, and a
        // folder where it goes.
        const parts = c.path.split('/');
        for (let i = 1; i < parts.length; i++) entries.delete(parts.slice(0, i).join('/'));
        for (const file of [...entries.keys()]) if (file.startsWith(`${c.path}/`)) entries.delete(file);
        entries.set(c.path, { mode: c.mode ?? '100644', oid: write('blob', Buffer.from(c.text ?? '')) });
      }
      written = writeTree(entries);
      entriesOfTree.set(written, entries);
    }
    const who = `t <t@example.com> ${Math.floor(Date.now() / 1000)} +0000`;
    const body = [
      `tree ${written}`,
      ...parents.map((p) => `parent ${p}`),
      `author ${who}`,
      `committer ${who}`,
    ];
    const oid = write('commit', Buffer.from(`${body.join('\n')}\n\nc\n`));
    treeOfCommit.set(oid, written);
    return oid;
  };
  /** The files of a commit made here, in git's order (as `ls-tree -r --name-only`). */
  const files = (rev: string) => {
    const tree = treeOfCommit.get(rev);
    if (tree === undefined) throw new Error(`not a commit of this fixture: ${rev}`);
    return [...entriesOf(tree).keys()].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  };
  const treeOf = (rev: string) => git(['rev-parse', `${rev}^{tree}`]);
  /** merge-tree of `commit` onto `onto`: the tree, or null on a conflict. */
  const mergeTree = (onto: string, commit: string): string | null => {
    try {
      return git(['merge-tree', '--write-tree', '--no-messages', onto, commit]).split('\n')[0] ?? null;
    } catch {
      return null;
    }
  };
  return { hub, git, commit, files, treeOf, mergeTree };
}

/** mulberry32: the same histories on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pending = (mr: number, commit: string): Pending => ({
  mr,
  agent: `a${mr}`,
  branch: `agent/a${mr}`,
  commit,
  note: `change ${mr}`,
  approved: false,
  landRetries: 0,
});

describe('the fast lane', () => {
  it('writes the tree merge-tree writes for every request it takes, over 25 random histories', async () => {
    let taken = 0;
    let left = 0;
    for (let seed = 1; seed <= 25; seed++) {
      const r = repo();
      const rnd = random(seed);
      const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)] as T;
      const initial = Array.from({ length: 12 }, (_, i) => ({
        path: `${pick(['', 'd1/', 'd2/', 'd2/sub/', 'd3/'])}f${i}.txt`,
        text: `file ${i}\n`,
      }));
      const base = r.commit([], initial);
      const randomChange = (at: string) => {
        const existing = r.files(at);
        const kind = rnd();
        const file = pick(existing);
        if (kind < 0.4) return [{ path: file, text: `edit ${rnd()}\n` }];
        if (kind < 0.55)
          return [
            {
              path: `${pick(['', 'd1/', 'd2/', 'd4/', 'd2/sub/'])}new${Math.floor(rnd() * 30)}.txt`,
              text: `new ${rnd()}\n`,
            },
          ];
        if (kind < 0.65) return [{ path: file, deleted: true }];
        if (kind < 0.75)
          return [
            { path: file, deleted: true },
            { path: `moved/${path.basename(file)}`, text: `file moved\n` },
          ];
        if (kind < 0.82) return [{ path: file, text: 'exec\n', mode: '100755' }];
        if (kind < 0.9) return [{ path: `link${Math.floor(rnd() * 5)}`, text: file, mode: '120000' }];
        return [
          { path: file, deleted: true },
          { path: `${file}/inner.txt`, text: 'now a folder\n' },
        ];
      };
      // main: the base and a few landed commits on it.
      const chain = [base];
      for (let i = 0, n = Math.floor(rnd() * 5); i < n; i++) {
        const tip = chain.at(-1) as string;
        chain.push(r.commit([tip], randomChange(tip)));
      }
      const main = chain.at(-1) as string;
      // agents: from a point of the chain, one or two commits, sometimes merging a later main.
      const batch: Pending[] = [];
      for (let mr = 1; mr <= 8; mr++) {
        let tip = pick(chain);
        for (let k = 0, n = 1 + Math.floor(rnd() * 2); k < n; k++) tip = r.commit([tip], randomChange(tip));
        if (rnd() < 0.2) {
          const later = pick(chain);
          const merged = r.mergeTree(tip, later);
          if (merged) tip = r.commit([tip, later], [], merged);
        }
        batch.push(pending(mr, tip));
      }
      const reader = new ObjectReader(r.hub);
      readers.push(reader);
      const plan = await planFastChain(r.hub, reader, new MainChain(reader, base), main, batch);
      taken += plan.fast.length;
      left += plan.rest.length;
      expect(plan.fast.length + plan.rest.length).toBe(batch.length);
      if (plan.fast.length === 0) continue;
      const written = await writeFastChain(r.hub, main, plan.fast, 'refs/colony/candidate/test');
      if (!written.ok) throw new Error(written.error);
      let top = main;
      plan.fast.forEach(({ request }, i) => {
        const expected = r.mergeTree(top, request.commit);
        const commit = written.commits[i] as string;
        expect({ seed, mr: request.mr, tree: r.treeOf(commit) }).toEqual({
          seed,
          mr: request.mr,
          tree: expected,
        });
        expect(r.git(['rev-parse', `${commit}^`])).toBe(top);
        top = commit;
      });
      expect(r.git(['log', '-1', '--format=%an|%cn|%B', top])).toContain(
        `Colony-MR: ${plan.fast.at(-1)?.request.mr}`,
      );
    }
    // Both ways are exercised: many requests taken, and some left to merge-tree.
    expect(taken).toBeGreaterThan(50);
    expect(left).toBeGreaterThan(20);
  });

  it('takes requests stacked on a landed request of their agent, with the tree merge-tree writes, over 15 random histories', async () => {
    let stackedTaken = 0;
    let left = 0;
    for (let seed = 1; seed <= 15; seed++) {
      const r = repo();
      const rnd = random(1000 + seed);
      const pick = <T>(list: T[]): T => list[Math.floor(rnd() * list.length)] as T;
      const initial = Array.from({ length: 40 }, (_, i) => ({
        path: `${pick(['', 'd1/', 'd2/', 'd2/sub/'])}f${i}.txt`,
        text: `file ${i}\n`,
      }));
      const base = r.commit([], initial);
      const edit = (at: string, avoid: Set<string> = new Set()) => {
        const file = pick(r.files(at).filter((f) => !avoid.has(f)));
        const kind = rnd();
        if (kind < 0.6) return [{ path: file, text: `edit ${rnd()}\n` }];
        if (kind < 0.8)
          return [
            { path: `d${1 + Math.floor(rnd() * 3)}/new${Math.floor(rnd() * 40)}.txt`, text: `n ${rnd()}\n` },
          ];
        return [{ path: file, deleted: true }];
      };
      // Agents' first requests, from the base; each lands on main (as merge-tree would land it), and
      // main moves on between landings, sometimes over a path a first request changed.
      let main = base;
      const firsts: string[] = [];
      for (let a = 0; a < 6; a++) {
        const first = r.commit([base], edit(base));
        const tree = r.mergeTree(main, first);
        if (!tree) continue;
        main = r.commit([main], [], tree);
        firsts.push(first);
        if (rnd() < 0.4) main = r.commit([main], edit(main));
      }
      // Second requests on top of the first (one or two commits), sometimes over the first's paths.
      const batch: Pending[] = [];
      firsts.forEach((first, i) => {
        let tip = first;
        for (let k = 0, n = 1 + Math.floor(rnd() * 2); k < n; k++) tip = r.commit([tip], edit(tip));
        batch.push(pending(i + 1, tip));
      });
      for (let mr = batch.length + 1; batch.length < 8; mr++)
        batch.push(pending(mr, r.commit([base], edit(base))));
      const reader = new ObjectReader(r.hub);
      readers.push(reader);
      const plan = await planFastChain(
        r.hub,
        reader,
        new MainChain(reader, base),
        main,
        batch,
        new Set(firsts),
      );
      left += plan.rest.length;
      if (plan.fast.length === 0) continue;
      const written = await writeFastChain(r.hub, main, plan.fast, 'refs/colony/candidate/test');
      if (!written.ok) throw new Error(written.error);
      let top = main;
      plan.fast.forEach(({ request }, i) => {
        if (request.mr <= firsts.length) stackedTaken++;
        const commit = written.commits[i] as string;
        expect({ seed, mr: request.mr, tree: r.treeOf(commit) }).toEqual({
          seed,
          mr: request.mr,
          tree: r.mergeTree(top, request.commit),
        });
        top = commit;
      });
    }
    // Stacked requests are taken (without `landed` they all overlap their own first request), and
    // the unsafe ones (over the first's paths, or main moved them) are left to merge-tree.
    expect(stackedTaken).toBeGreaterThan(15);
    expect(left).toBeGreaterThan(10);
  });

  it('finds the merge base on main for a branch that merged a later main, and none off main', async () => {
    const r = repo();
    const base = r.commit([], [{ path: 'a.txt', text: 'a\n' }]);
    const m1 = r.commit([base], [{ path: 'b.txt', text: 'b\n' }]);
    const m2 = r.commit([m1], [{ path: 'c.txt', text: 'c\n' }]);
    const reader = new ObjectReader(r.hub);
    readers.push(reader);
    const chain = new MainChain(reader, base);
    expect(await chain.moveTo(m2)).toBe(true);
    const work = r.commit([base], [{ path: 'x.txt', text: 'x\n' }]);
    const synced = r.commit([work, m1], [], r.mergeTree(work, m1) ?? undefined);
    expect(await mergeBaseOnChain(reader, chain, work)).toBe(base);
    expect(await mergeBaseOnChain(reader, chain, synced)).toBe(m1);
    // On main already: nothing to merge, left to merge-tree to say so.
    expect(await mergeBaseOnChain(reader, chain, m1)).toBeNull();
    // A history of its own (another root) has no merge base on the chain.
    const stranger = r.commit(
      [r.commit([], [{ path: 'z.txt', text: 'z\n' }])],
      [{ path: 'y.txt', text: 'y\n' }],
    );
    expect(await mergeBaseOnChain(reader, chain, stranger)).toBeNull();
    // main moved back (a guard reset): the chain follows.
    expect(await chain.moveTo(m1)).toBe(true);
    expect(chain.indexOf(m2)).toBeUndefined();
    expect(await mergeBaseOnChain(reader, chain, synced)).toBe(m1);
  });

  it('leaves to merge-tree a file added in a folder that main renamed (directory-rename detection)', async () => {
    const r = repo();
    const base = r.commit(
      [],
      [
        { path: 'old/a.txt', text: 'alpha alpha alpha\n' },
        { path: 'old/b.txt', text: 'beta beta beta\n' },
        { path: 'keep.txt', text: 'k\n' },
      ],
    );
    const renamed = r.commit(
      [base],
      [
        { path: 'old/a.txt', deleted: true },
        { path: 'old/b.txt', deleted: true },
        { path: 'new/a.txt', text: 'alpha alpha alpha\n' },
        { path: 'new/b.txt', text: 'beta beta beta\n' },
      ],
    );
    const reader = new ObjectReader(r.hub);
    readers.push(reader);
    const adds = r.commit([base], [{ path: 'old/c.txt', text: 'gamma\n' }]);
    const others = [2, 3, 4, 5].map((mr) =>
      pending(mr, r.commit([base], [{ path: `n${mr}.txt`, text: 'n\n' }])),
    );
    const plan = await planFastChain(r.hub, reader, new MainChain(reader, base), renamed, [
      pending(1, adds),
      ...others,
    ]);
    // Without the folder rule the fast lane would write old/c.txt where git's merge moves it (or
    // reports the conflict): it must not take it.
    expect(r.mergeTree(renamed, adds)).not.toBe(
      r.treeOf(r.commit([renamed], [{ path: 'old/c.txt', text: 'gamma\n' }])),
    );
    expect(plan.rest.map((p) => p.mr)).toEqual([1]);
    expect(plan.fast.map((f) => f.request.mr)).toEqual([2, 3, 4, 5]);
  });

  it('takes nothing when main above the base is not linear', async () => {
    const r = repo();
    const base = r.commit([], [{ path: 'a.txt', text: 'a\n' }]);
    const side = r.commit([base], [{ path: 's.txt', text: 's\n' }]);
    const m1 = r.commit([base], [{ path: 'b.txt', text: 'b\n' }]);
    const merged = r.commit([m1, side], [], r.mergeTree(m1, side) ?? undefined);
    const reader = new ObjectReader(r.hub);
    readers.push(reader);
    const batch = [1, 2, 3, 4, 5].map((mr) =>
      pending(mr, r.commit([m1], [{ path: `n${mr}.txt`, text: 'n\n' }])),
    );
    const plan = await planFastChain(r.hub, reader, new MainChain(reader, base), merged, batch);
    expect(plan.fast).toHaveLength(0);
    expect(plan.rest).toHaveLength(5);
    // The same requests on a linear main are all taken.
    const linear = await planFastChain(r.hub, reader, new MainChain(reader, base), m1, batch);
    expect(linear.fast.map((f) => f.request.mr)).toEqual([1, 2, 3, 4, 5]);
  });
});
