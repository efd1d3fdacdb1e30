/**
 * How a direct message reaches the model: a user turn in front of the next request. Used by the
 * injector that delivers it and by replay that puts it back in place, so both frame it the same way.
 */

/** The sender name of messages from the person running Colony. */
export const USER_SENDER = 'user';

export function formatDirectMessage(message: { from: string; text: string }): string {
  const who = message.from === USER_SENDER ? 'the user' : message.from;
  return `[Direct message from ${who} — read this first] ${message.text}`;
}
