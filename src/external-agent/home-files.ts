/**
 * The files Colony writes into an external CLI's home before each start (its config, its key file).
 * The home is the agent's: writable to it in its sandbox, so it may hold links planted to make
 * Colony's own writes land on the host. Each file is written without following a link on any
 * component (core/no-follow.ts): a link at the file itself is replaced by the file, a link in place
 * of a folder refuses the start.
 */
import { writeNoFollow } from '../core/no-follow.js';
import { err, ok, type Result } from '../lang/result.js';

export interface HomeFile {
  /** Relative to the agent's home. */
  path: string;
  content: string;
}

export async function writeHomeFiles(home: string, files: readonly HomeFile[]): Promise<Result<void>> {
  for (const file of files) {
    const written = await writeNoFollow(home, file.path, file.content, { mode: 0o600 });
    if (!written.ok)
      return err(`Colony did not write ${file.path} in the agent's home ${home}: ${written.error}`);
  }
  return ok(undefined);
}
