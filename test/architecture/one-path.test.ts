/**
 * One way to do each thing that used to be copied (issue 28): every agent starts in
 * topology/session/agent-session.ts and reaches its model through topology/session/drive-agent.ts,
 * hub main is read by workspace/hub/main.ts, every run's status through topology/session/run-verdict.ts,
 * and every process hosting a run builds its log, scrubber and rate gate in
 * topology/session/run-services.ts, and every command an agent can influence starts through
 * sandbox/spawn.ts. A second copy anywhere in src/ fails here, naming the file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The files (relative to src/) whose code matches `pattern`, comments left out. */
function filesMatching(pattern: RegExp): string[] {
  return sources(SRC)
    .filter((path) => {
      const code = readFileSync(path, 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/^\s*\/\/.*$/gm, '');
      return pattern.test(code);
    })
    .map((path) => relative(SRC, path))
    .sort();
}

describe('one path', () => {
  it('starts every agent through driveAgent: the loop or a CLI is the only choice', () => {
    expect(filesMatching(/\brunAgent\(/)).toEqual(['agent/loop.ts', 'topology/session/drive-agent.ts']);
    expect(filesMatching(/\.drive\(\{|host\.drive\(/)).toEqual(['topology/session/drive-agent.ts']);
  });

  it('logs every agent start (agent.started, its system prompt) in one agent session', () => {
    // An emit/append whose kind argument is 'agent.started', however the call is spread over lines.
    expect(filesMatching(/\b(?:emit|eventOf|append)\(\s*(?:[\w.]+,\s*)*'agent\.started'/)).toEqual([
      'topology/session/agent-session.ts',
    ]);
  });

  it('reads hub main in one place', () => {
    // A read of the hub's main by ref files, rev-parse or a helper, naming it by MAIN_REF or HUB_MAIN.
    const read =
      /(?:revParse|hubRefCommit|readRefFiles)\([^)]*(?:MAIN_REF|HUB_MAIN)|'rev-parse'[^\n]*(?:MAIN_REF|HUB_MAIN)/;
    expect(filesMatching(read)).toEqual(['workspace/hub/main.ts']);
  });

  it('decides every run status in one place', () => {
    expect(filesMatching(/function decide\w*Status\b/)).toEqual(['topology/session/run-verdict.ts']);
  });

  it('starts every command an agent can influence through sandbox/spawn.ts (contained or not)', () => {
    // detect.ts probes bubblewrap itself; repo-command.ts contains Colony's own git calls.
    expect(filesMatching(/\bcontainCommand\(/)).toEqual([
      'sandbox/argv.ts',
      'sandbox/detect.ts',
      'sandbox/spawn.ts',
    ]);
  });

  it('builds a run’s log, scrubber and rate gate once, for its owner and its workers alike', () => {
    expect(filesMatching(/new RateGate\(/)).toEqual(['topology/session/run-services.ts']);
    expect(filesMatching(/\bscrubbingLog\(/)).toEqual([
      'store/scrubbing-log.ts',
      'topology/session/run-services.ts',
    ]);
  });
});
