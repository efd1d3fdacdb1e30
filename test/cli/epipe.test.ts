/**
 * `colony models | head -1`: a reader that closed the pipe ends the command quietly (exit 0, no
 * stack trace). The test closes its end of stdout before the child can write a byte.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { COLONY_BIN } from '../helpers/cli.js';

function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [COLONY_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += String(chunk);
    });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('a closed stdout', () => {
  it('ends colony models quietly', async () => {
    const result = await withClosedStdout(['models']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
