/** CPU profile of a window of this process (`--cpu-prof FILE`), via the inspector, for chrome://inspect or speedscope. */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

export interface WindowProfiler {
  stop(): Promise<void>;
}

export async function startProfile(file: string): Promise<WindowProfiler> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}
