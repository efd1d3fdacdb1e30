/**
 * Profiles decide an agent's tool set. `explore` and `reviewer` are read-only: no bash, since no
 * sandbox enforces read-only commands. `coder` has every tool. (Later: `plan`, `integrator`.)
 */
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

export const PROFILE_NAMES = ['explore', 'reviewer', 'coder'] as const;
export type ProfileName = (typeof PROFILE_NAMES)[number];

export interface ProfileOptions {
  bash?: BashToolOptions;
}

export function isProfileName(name: string): name is ProfileName {
  return (PROFILE_NAMES as readonly string[]).includes(name);
}

export function toolsForProfile(
  profile: string,
  root: string,
  options: ProfileOptions = {},
): { ok: true; tools: Tool[] } | { ok: false; error: string } {
  if (!isProfileName(profile)) {
    return { ok: false, error: `unknown profile "${profile}" (known: ${PROFILE_NAMES.join(', ')})` };
  }
  const readOnly = [createReadTool(root), createGrepTool(root), createLsTool(root)];
  switch (profile) {
    case 'explore':
    case 'reviewer':
      return { ok: true, tools: readOnly };
    case 'coder':
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
