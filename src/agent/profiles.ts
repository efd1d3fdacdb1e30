/**
 * Profiles decide an agent's tool set. `explore`, `reviewer` and `plan` are read-only: they get bash
 * only in a sandbox that binds their checkout read-only (`ProfileOptions.bash.sandbox`, src/sandbox/),
 * none without one. `coder` and `integrator` have every tool (the integrator is
 * the agent that merges, builds and tests; topologies give it the integration tools). A config may
 * define more profiles on top of these (`ProfileDefinition`: a base profile, a model, a step cap, an
 * external CLI driving the loop, the team's coordination it gets).
 *
 * Coordination is a capability, not a topology: any agent's tool set may include the team's shared
 * context, claims, task board and messages (src/coord/tools). Each topology gives its agents a default
 * (peers: all of it; orchestrated subagents and workflow agents: context and claims; solo: none) and a
 * profile's `coordination` replaces that default.
 */

import { readOnlySandbox } from '../sandbox/index.js';
import { type CheckoutFill, withCheckoutFill } from '../tool/checkout-fill.js';
import type { AgentCliChoice } from './cli-choice.js';
import {
  type BashToolOptions,
  createBashTool,
  createEditTool,
  createGrepTool,
  createLsTool,
  createReadTool,
  createWriteTool,
  type Tool,
} from './tools/index.js';

export const PROFILE_NAMES = ['explore', 'reviewer', 'plan', 'coder', 'integrator'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export interface ProfileOptions {
  bash?: BashToolOptions;
  /** The checkout is filled on demand: each file tool and bash brings in what it touches first. */
  fill?: CheckoutFill;
}

export function isProfileName(name: string): name is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(name);
}

export function toolsForProfile(
  profile: string,
  root: string,
  options: ProfileOptions = {},
): { ok: true; tools: Tool[] } | { ok: false; error: string } {
  const built = profileTools(profile, root, options);
  if (!built.ok || !options.fill) return built;
  return { ok: true, tools: withCheckoutFill(built.tools, options.fill) };
}

function profileTools(
  profile: string,
  root: string,
  options: ProfileOptions,
): { ok: true; tools: Tool[] } | { ok: false; error: string } {
  if (!isProfileName(profile)) {
    return { ok: false, error: `unknown profile "${profile}" (known: ${PROFILE_NAMES.join(', ')})` };
  }
  const readOnly = [createReadTool(root), createGrepTool(root), createLsTool(root)];
  switch (profile) {
    case 'explore':
    case 'reviewer':
    case 'plan': {
      const sandbox = options.bash?.sandbox;
      if (!sandbox) return { ok: true, tools: readOnly };
      const bash = createBashTool(root, { ...options.bash, sandbox: readOnlySandbox(sandbox) });
      return { ok: true, tools: [...readOnly, bash] };
    }
    case 'coder':
    case 'integrator':
      return {
        ok: true,
        tools: [
          createReadTool(root),
          createWriteTool(root),
          createEditTool(root),
          createBashTool(root, options.bash),
          createGrepTool(root),
          createLsTool(root),
        ],
      };
  }
}

/**
 * The parts of the team's coordination an agent may get (tool names in src/coord/tools/index.ts):
 *   context  — context_post, context_read, context_unfold (context_read also delivers messages)
 *   claims   — claim, release
 *   tasks    — tasks_add, tasks_ready, claim_next (the task board; taking a task is a claim)
 *   messages — message_send, message_read
 */
export const COORDINATION_CAPABILITIES = ['context', 'claims', 'tasks', 'messages'] as const;
export type CoordinationCapability = (typeof COORDINATION_CAPABILITIES)[number];

/** Peers: everything. */
export const ALL_COORDINATION: readonly CoordinationCapability[] = COORDINATION_CAPABILITIES;
/** Orchestrated subagents and workflow agents, unless their profile says otherwise. */
export const TEAM_COORDINATION: readonly CoordinationCapability[] = ['context', 'claims'];

/** A profile's own coordination, else the topology's default for its agents (in canonical order). */
export function coordinationOf(
  profile: Pick<ProfileDefinition, 'coordination'> | undefined,
  defaults: readonly CoordinationCapability[],
): CoordinationCapability[] {
  const chosen = new Set(profile?.coordination ?? defaults);
  return COORDINATION_CAPABILITIES.filter((c) => chosen.has(c));
}

/** True for profiles whose agents change files (they get a worktree branch that lands via the queue). */
export function profileWrites(profile: ProfileName): boolean {
  return profile === 'coder' || profile === 'integrator';
}

/** A profile from config: a built-in base tool set plus its own model, step cap and role prompt. */
export interface ProfileDefinition {
  base: ProfileName;
  model?: string;
  maxSteps?: number;
  /** Prepended to the system prompt the lead gives a subagent of this profile. */
  prompt?: string;
  /**
   * An external agent CLI drives its subagents' loops (src/external-agent/); its model is the profile's
   * (`model`, else the run's), not the choice's.
   */
  cli?: AgentCliChoice;
  /**
   * The team's coordination its agents get, replacing the topology's default (`[]`: none). Claims
   * are leases: held while the agent works, released when its task (or workflow attempt) ends.
   */
  coordination?: CoordinationCapability[];
}

export type ResolvedProfile = { name: string } & ProfileDefinition;

/** A built-in profile or one from config (config wins, so a config may give `coder` its own model). */
export function resolveProfile(
  name: string,
  defined: Readonly<Record<string, ProfileDefinition>> = {},
): { ok: true; profile: ResolvedProfile } | { ok: false; error: string } {
  const own = defined[name];
  if (own) return { ok: true, profile: { name, ...own } };
  if (isProfileName(name)) return { ok: true, profile: { name, base: name } };
  const known = [...new Set([...PROFILE_NAMES, ...Object.keys(defined)])].join(', ');
  return { ok: false, error: `unknown profile "${name}" (known: ${known})` };
}
