import { createCoordination, USER_SENDER } from '../../coord/index.js';
import { isRunInterrupted } from '../../run/interrupted.js';
import { checkUserMessage } from '../../topology/team/recipients.js';
import { parseFlags, UsageError } from '../args.js';
import { CliFailure, requireRun, withStore } from '../store-access.js';

export const SEND_HELP = `colony send RUN (--to AGENT | --channel NAME) TEXT

Sends a message from the user to a run's agents. A direct message (--to) interrupts: it goes into the
agent's very next model request, ahead of everything else. A channel message (--channel, "all" for
every agent) is delivered at the agents' next gather step (message_read or context_read). A message
to a finished run, or to a name that is not an agent of the run (or to one that has finished), is
refused, and so is a channel message no agent would read (a solo run's agent has no gather step; a
named channel needs a working member). A message to an interrupted run (its process is gone) is kept
and read once colony resume RUN resumes it.`;

export async function sendCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { to: { type: 'string' }, channel: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    'send',
  );
  if (values.help) {
    process.stdout.write(`${SEND_HELP}\n`);
    return 0;
  }
  const [runId, ...words] = positionals;
  const text = words.join(' ').trim();
  if (!runId || text === '')
    throw new UsageError('send: usage: colony send RUN (--to AGENT | --channel NAME) TEXT');
  if (Boolean(values.to) === Boolean(values.channel))
    throw new UsageError('send: give exactly one of --to AGENT or --channel NAME');
  return withStore(async (store) => {
    await requireRun(store, runId);
    const coord = await createCoordination(store);
    try {
      const to = values.to?.trim();
      const check = await checkUserMessage(
        store.log,
        runId,
        to
          ? { to }
          : {
              channel: values.channel?.trim() ?? '',
              members: (channel) => coord.messages.channelMembers(runId, channel),
            },
      );
      if (!check.ok) throw new CliFailure(`send: ${check.error}`);
      const sent = await coord.messages.send({
        runId,
        from: USER_SENDER,
        to: values.to ?? null,
        channel: values.channel ?? null,
        text,
      });
      if (!sent.ok) throw new CliFailure(sent.error);
      process.stdout.write(
        `sent message ${sent.value.id} to ${values.to ? `agent ${values.to}` : `channel ${values.channel}`} of run ${runId}\n`,
      );
      // Kept for the run, but nothing reads it until a process executes the run again.
      if (await isRunInterrupted(store, runId))
        process.stdout.write(
          `run ${runId} is interrupted (its process is gone): the message is read once colony resume ${runId} resumes it\n`,
        );
      return 0;
    } finally {
      await coord.close();
    }
  });
}
