/** The adapter of each CLI kind. */
import type { AgentCliKind } from '../run/run-spec.js';
import type { Adapter } from './adapter.js';
import { claudeCodeAdapter } from './claude-code.js';
import { cmdAdapter } from './cmd-adapter.js';
import { codexAdapter } from './codex.js';

const ADAPTERS: Record<AgentCliKind, Adapter> = {
  cmd: cmdAdapter,
  'claude-code': claudeCodeAdapter,
  codex: codexAdapter,
};

export function adapterFor(kind: AgentCliKind): Adapter {
  return ADAPTERS[kind];
}

/** CLIs that take direct messages on their stdin while they run; the others get them with tool results. */
export function takesStdinMessages(kind: AgentCliKind): boolean {
  return kind === 'claude-code';
}
