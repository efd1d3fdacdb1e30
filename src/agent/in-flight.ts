/**
 * Exactly-once file effects. A file tool logs its intent (`tool.intent`: the file's hash before and
 * after the change) and only then writes; the result is logged after. A call in flight when the
 * process died therefore has an intent but no result, and its file tells what happened: at the
 * after-state, the change was made (the call is completed from its logged result, not applied again
 * — an `edit` whose new text holds its old text would apply twice); at the before-state, it was not
 * (the call runs); anything else, someone changed the file while Colony was down (the call is not
 * run, and the model is told). `bash` has no intent: a command in flight runs again.
 */
import type { EventPayloads } from '../core/events.js';
import type { FileState, ToolResult } from '../tool/types.js';

export type InFlightDecision =
  /** Run the call as if it had never started. */
  | { run: true }
  /** Do not run it: this is its result. */
  | { run: false; recovered: 'applied' | 'changed'; result: ToolResult };

/** What to do with a call in flight at a crash, from its logged intent and its file's state now. */
export function decideInFlight(intent: EventPayloads['tool.intent'], now: FileState): InFlightDecision {
  if (now.ok && now.value === intent.afterHash) {
    return { run: false, recovered: 'applied', result: { isError: false, content: intent.result } };
  }
  if (now.ok && now.value === intent.beforeHash) return { run: true };
  const found = now.ok ? (now.value === null ? 'it is gone' : 'it has other content') : now.error;
  return {
    run: false,
    recovered: 'changed',
    result: {
      isError: true,
      content:
        `the file changed while Colony was down: ${intent.path} is neither as it was before this ` +
        `${intent.name} nor as the ${intent.name} would have left it (${found}), so the call was not ` +
        'run again. Read the file and make the change again if it is still needed.',
    },
  };
}
