/** Types of disk-full-scenario.mjs (plain JavaScript, so a child `node` can run it too). */
import type { Budget } from '../../src/agent/budget.js';
import type { AgentDeps, AgentOutcome, AgentSpec } from '../../src/agent/loop.js';
import type { Scrubber } from '../../src/core/secrets.js';
import type { ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { Provider } from '../../src/model/types.js';
import type { EventLog } from '../../src/store/types.js';
import type { Tool, ToolResult } from '../../src/tool/types.js';

export interface DiskFullLib {
  createWriteTool(root: string): Tool;
  createEditTool(root: string): Tool;
  createBashTool(root: string): Tool;
  toolsForProfile(profile: string, root: string): { ok: true; tools: Tool[] } | { ok: false; error: string };
  createScriptedProvider(turns: ScriptedTurn[]): Provider;
  runAgent(spec: AgentSpec, deps: AgentDeps): Promise<AgentOutcome>;
  createScrubber(secrets: string[]): Scrubber;
  Budget: typeof Budget;
}

export interface DiskFullReport {
  filled: number;
  write: ToolResult;
  overwrite: ToolResult;
  edit: ToolResult;
  bash: ToolResult;
  echo: ToolResult;
  filesWhenFull: string[];
  keepWhenFull: string;
  outcome: AgentOutcome;
  loopEvents: Array<{ kind: string; data: Record<string, unknown> }>;
  afterFree: ToolResult;
}

export function memoryLog(): EventLog & { events: unknown[] };
export function diskFullScenario(
  lib: DiskFullLib,
  dir: string,
  log?: EventLog,
  runId?: string,
): Promise<DiskFullReport>;
