/**
 * Tools over a checkout filled on demand (workspace/agent-repo/lazy-checkout.ts): before a call runs, the files
 * it touches are brought into the checkout, so a file tool sees the file and bash sees the whole tree.
 */
import type { Result } from '../lang/result.js';
import { fail, type Tool } from './types.js';

/** What brings files of the agent's branch into its checkout. */
export interface CheckoutFill {
  /**
   * Makes these paths (files, or folders with everything in them) present in the checkout;
   * `replaced`: they are about to be written whole, so only git's sight of them is needed.
   */
  paths(rels: readonly string[], options?: { replaced?: boolean }): Promise<Result<void>>;
  /** Makes the whole tree present, for good (bash, an external CLI, a setup command). */
  all(): Promise<Result<void>>;
}

/** The same tools, each one that touches files filling the checkout with them before it runs. */
export function withCheckoutFill(tools: Tool[], fill: CheckoutFill): Tool[] {
  return tools.map((tool): Tool => {
    const touches = tool.touches;
    if (!touches) return tool;
    return {
      ...tool,
      run: async (args, context) => {
        const touched = touches(args);
        const filled =
          touched === 'all'
            ? await fill.all()
            : 'replaced' in touched
              ? await fill.paths(touched.replaced, { replaced: true })
              : touched.length > 0
                ? await fill.paths(touched)
                : null;
        if (filled && !filled.ok)
          return fail(`${tool.spec.name}: could not bring the files into your checkout: ${filled.error}`);
        return tool.run(args, context);
      },
    };
  });
}
