import { createHash } from 'node:crypto';

/**
 * A statement Postgres prepares once per connection and then plans from its cache: for the hot
 * statements run once per agent or per step (a message read's CTE took 0.46 ms to plan and 0.4 ms to
 * run). The name is derived from the text, so one name never stands for two texts on a connection.
 */
export function prepared(text: string): { name: string; text: string } {
  return { name: `colony_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`, text };
}
