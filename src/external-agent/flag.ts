/**
 * `--agent-cli claude-code | codex | 'cmd:<command>'` → the run spec's field, or why not. The
 * claude-code and codex CLIs must be installed (on PATH, or the pinned package in Colony's
 * node_modules); the error names the npm package and version to install.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../core/package-root.js';
import { err, ok, type Result } from '../lang/result.js';
import type { AgentCliSpec } from '../run/run-spec.js';
import { findOnPath } from '../sandbox/index.js';
import { CLAUDE_CODE_PACKAGE, CLAUDE_CODE_VERSION } from './claude-code.js';
import { CODEX_PACKAGE, CODEX_VERSION } from './codex.js';

const INSTALLS = {
  'claude-code': { bin: 'claude', pkg: CLAUDE_CODE_PACKAGE, version: CLAUDE_CODE_VERSION, file: 'cli.js' },
  codex: { bin: 'codex', pkg: CODEX_PACKAGE, version: CODEX_VERSION, file: 'bin/codex.js' },
} as const;

export function parseAgentCliFlag(
  value: string,
  env: NodeJS.ProcessEnv = process.env,
  root = packageRoot(),
): Result<AgentCliSpec> {
  if (value.startsWith('cmd:')) {
    const command = value.slice(4).trim();
    if (command === '') return err("--agent-cli 'cmd:<command>' needs a command after cmd:");
    return ok({ kind: 'cmd', command });
  }
  if (value !== 'claude-code' && value !== 'codex')
    return err(`--agent-cli must be claude-code, codex or 'cmd:<command>', not "${value}"`);
  const install = INSTALLS[value];
  // The pinned package in Colony's own node_modules first (run with this Node), else the PATH's.
  const bundled = join(root, 'node_modules', install.pkg, install.file);
  if (existsSync(bundled)) return ok({ kind: value, command: bundled });
  if (findOnPath(install.bin, env.PATH)) return ok({ kind: value });
  return err(
    `--agent-cli ${value}: the ${install.bin} command is not installed; install it with \`npm install -g ${install.pkg}@${install.version}\` (the version Colony is tested with)`,
  );
}
