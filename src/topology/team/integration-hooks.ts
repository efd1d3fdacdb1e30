/** Connects the integration queue to the coordination services: PATCH/FAIL entries and direct messages. */
import type { Coordination } from '../../coord/index.js';
import type { IntegrationHooks } from '../../workspace/integration/types.js';

export function coordinationHooks(coord: Coordination, runId: string): IntegrationHooks {
  return {
    async postEntry(entry) {
      const posted = await coord.context.post({ runId, ...entry });
      if (!posted.ok) throw new Error(posted.error);
    },
    async sendDirect(to, from, text) {
      const sent = await coord.messages.send({ runId, from, to, text });
      if (!sent.ok) throw new Error(sent.error);
    },
  };
}
