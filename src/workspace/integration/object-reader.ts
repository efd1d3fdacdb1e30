/**
 * A long-lived `git cat-file --batch` on the hub: the integration queue reads commit objects (their
 * tree and parents) through one process instead of one `git` spawn per question. Reads are answered
 * in the order they were asked; a process that dies fails the reads in flight and is started again on
 * the next read.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { gitEnv } from '../git/git.js';

export interface CommitObject {
  id: string;
  tree: string;
  parents: string[];
}

interface Waiting {
  resolve: (object: { type: string; body: Buffer } | null) => void;
  reject: (error: Error) => void;
}

export class ObjectReader {
  private child: ChildProcessWithoutNullStreams | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly waiting: Waiting[] = [];

  constructor(private readonly repo: string) {}

  /** The commit `id` (full object id), or null when it is missing or not a commit. */
  async commit(id: string): Promise<CommitObject | null> {
    if (!/^[0-9a-f]{40,64}$/.test(id)) return null;
    const object = await this.read(id);
    if (object === null || object.type !== 'commit') return null;
    return parseCommit(id, object.body);
  }

  /** One object by full id: its type and content, or null when the hub does not have it. */
  read(id: string): Promise<{ type: string; body: Buffer } | null> {
    return new Promise((resolve, reject) => {
      const child = this.process();
      if (this.waiting.length === 0) handles(child).ref();
      this.waiting.push({ resolve, reject });
      child.stdin.write(`${id}\n`);
    });
  }

  close(): void {
    const child = this.child;
    this.child = null;
    child?.stdin.end();
  }

  private process(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn('git', ['cat-file', '--batch'], { cwd: this.repo, env: gitEnv() });
    this.child = child;
    // An idle reader does not keep the process alive (a queue that was never closed); one with a
    // read in flight does.
    child.unref();
    handles(child).unref();
    this.buffer = Buffer.alloc(0);
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-2000);
    });
    child.stdout.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.answer();
      this.idle();
    });
    const fail = (why: string) => {
      if (this.child === child) this.child = null;
      const error = new Error(`git cat-file --batch in ${this.repo}: ${why}`);
      for (const waiting of this.waiting.splice(0)) waiting.reject(error);
    };
    child.on('error', (error) => fail(error.message));
    child.on('close', (code) => fail(stderr.trim() || `exited with ${code}`));
    // A write after the process died is reported through 'close'.
    child.stdin.on('error', () => {});
    return child;
  }

  /** Hands out every complete answer in the buffer: `<id> <type> <size>\n<body>\n` or `<id> missing\n`. */
  private answer(): void {
    for (;;) {
      const waiting = this.waiting[0];
      if (!waiting) return;
      const end = this.buffer.indexOf(10);
      if (end < 0) return;
      const header = this.buffer.subarray(0, end).toString('utf8').split(' ');
      if (header[1] === 'missing' || header.length !== 3) {
        this.buffer = this.buffer.subarray(end + 1);
        this.waiting.shift();
        waiting.resolve(null);
        continue;
      }
      const size = Number(header[2]);
      if (this.buffer.length < end + 1 + size + 1) return;
      const body = Buffer.from(this.buffer.subarray(end + 1, end + 1 + size));
      this.buffer = this.buffer.subarray(end + 1 + size + 1);
      this.waiting.shift();
      waiting.resolve({ type: header[1] as string, body });
    }
  }

  /** Called after each answer: nothing in flight, nothing to keep the process alive for. */
  private idle(): void {
    if (this.waiting.length === 0 && this.child) handles(this.child).unref();
  }
}

/** The pipes of the child: their ref() / unref() decide whether they keep the event loop alive. */
function handles(child: ChildProcessWithoutNullStreams): { ref(): void; unref(): void } {
  const pipes = [child.stdin, child.stdout, child.stderr] as unknown as { ref?(): void; unref?(): void }[];
  return {
    ref: () => {
      for (const pipe of pipes) pipe.ref?.();
    },
    unref: () => {
      for (const pipe of pipes) pipe.unref?.();
    },
  };
}

/** The tree and parents of a commit object (the header lines before the first blank line). */
export function parseCommit(id: string, body: Buffer): CommitObject | null {
  const headerEnd = body.indexOf('\n\n');
  const header = body.subarray(0, headerEnd < 0 ? body.length : headerEnd).toString('utf8');
  let tree: string | null = null;
  const parents: string[] = [];
  for (const line of header.split('\n')) {
    if (line.startsWith('tree ')) tree = line.slice(5);
    else if (line.startsWith('parent ')) parents.push(line.slice(7));
    else if (!line.startsWith(' ') && tree !== null && !line.startsWith('parent ')) break;
  }
  return tree === null ? null : { id, tree, parents };
}
