/**
 * A file's state as the file tools log it before they change it (`tool.intent`, agent/in-flight.ts):
 * the sha256 of its bytes, or null when there is no file. Read under the same policy as every file
 * tool (paths.ts resolves the path inside the checkout, file-kind.ts opens the checked real path
 * with O_NOFOLLOW and confirms it on the descriptor), so hashing follows no link the agent planted
 * and never blocks on a FIFO.
 */
import { createHash } from 'node:crypto';
import { err, ok } from '../../lang/result.js';
import type { FileState } from '../../tool/types.js';
import { resolveInside } from '../paths.js';
import { type CheckedPath, openRegularFile } from './file-kind.js';

const CHUNK = 1024 * 1024;

export function sha256(content: Buffer | string): string {
  return createHash('sha256').update(content).digest('hex');
}

/** The state of a checked path: its hash, null when absent, an error for anything but a regular file. */
export async function fileStateOf(file: CheckedPath): Promise<FileState> {
  const opened = await openRegularFile(file);
  if (!opened.ok) {
    // A name too long to exist (ENAMETOOLONG) names no file either; the write says why it fails.
    if (opened.kind === 'missing' || opened.kind === 'bad_name') return ok(null);
    if (opened.kind === 'not_regular') {
      if (opened.what === 'a directory') return err(`${file.rel} is a directory`);
      return err(`${file.rel} is ${opened.what}, not a regular file`);
    }
    return err(opened.error);
  }
  try {
    // Streamed: a large file costs its reading time, not its size in memory.
    const hash = createHash('sha256');
    const buffer = Buffer.alloc(CHUNK);
    for (;;) {
      const { bytesRead } = await opened.handle.read(buffer, 0, CHUNK, null);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
    }
    return ok(hash.digest('hex'));
  } finally {
    await opened.handle.close();
  }
}

/** The state of `rel` in the checkout at `root` (Tool.fileState of the file tools). */
export async function fileStateAt(root: string, rel: string): Promise<FileState> {
  const resolved = resolveInside(root, rel);
  if (!resolved.ok) return err(resolved.error);
  try {
    return await fileStateOf(resolved);
  } catch (error) {
    return err(`${rel} could not be read: ${(error as Error).message}`);
  }
}
