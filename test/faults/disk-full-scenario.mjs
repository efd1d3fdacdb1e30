/**
 * The disk-full scenario, in plain JavaScript so that it runs the same way in two places: inside
 * vitest on a tmpfs the test mounted (root; the library from src/), and in a child `node` inside a
 * user + mount namespace (any user; the library from dist/) where the child mounted the tmpfs.
 * `dir` is an empty, small (2 MiB) file system; `lib` holds the library's functions. Returns plain
 * data for the test to check (and, from a child, to print as JSON).
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const MIB = 1024 * 1024;

/** Appends to `file` until the file system is full; returns the bytes written. */
function fill(file) {
  const block = Buffer.alloc(64 * 1024, 'f');
  let written = 0;
  for (;;) {
    try {
      writeFileSync(file, block, { flag: 'a' });
      written += block.length;
    } catch (error) {
      if (error.code !== 'ENOSPC') throw error;
      // A last, partial block may still fit; then nothing does.
      for (const size of [4096, 1]) {
        try {
          for (;;) {
            writeFileSync(file, Buffer.alloc(size, 'f'), { flag: 'a' });
            written += size;
          }
        } catch (inner) {
          if (inner.code !== 'ENOSPC') throw inner;
        }
      }
      return written;
    }
  }
}

/** An EventLog that keeps events in memory (for the loop check where no store is at hand). */
export function memoryLog() {
  const events = [];
  const append = async (event) => {
    const stored = { ...event, seq: events.length + 1, ts: new Date().toISOString() };
    events.push(stored);
    return stored;
  };
  return {
    events,
    append,
    appendMany: (list) => Promise.all(list.map(append)),
    read: async (runId, options = {}) =>
      events.filter(
        (e) =>
          e.runId === runId &&
          (options.agent === undefined || e.agent === options.agent) &&
          (options.kinds === undefined || options.kinds.includes(e.kind)),
      ),
    verify: async () => ({ ok: true, events: events.length }),
    flush: async () => {},
  };
}

/**
 * The tools on a full disk, then the agent loop: write, overwrite, edit and bash each get a clear
 * error, nothing is left half-written, and after space is freed the same write succeeds; a scripted
 * agent that meets the full disk reads the errors and ends with a clear status.
 */
export async function diskFullScenario(lib, dir, log = memoryLog(), runId = `disk-full-${process.pid}`) {
  const { createWriteTool, createEditTool, createBashTool } = lib;
  const work = join(dir, 'checkout');
  mkdirSync(work);
  writeFileSync(join(work, 'keep.txt'), 'original\n');
  const filled = fill(join(dir, 'filler'));
  const big = 'x'.repeat(MIB);

  const write = await createWriteTool(work).run({ path: 'new/deep/file.txt', content: big }, {});
  const overwrite = await createWriteTool(work).run({ path: 'keep.txt', content: big }, {});
  const edit = await createEditTool(work).run({ path: 'keep.txt', old: 'original', new: big }, {});
  const bash = await createBashTool(work).run({ command: 'head -c 1048576 /dev/zero > out.bin' }, {});
  const echo = await createBashTool(work).run({ command: 'echo hello > hello.txt && echo written' }, {});
  const filesWhenFull = readdirSync(work).sort();
  const keepWhenFull = readFileSync(join(work, 'keep.txt'), 'utf8');

  // The loop: a scripted model writes, is told the disk is full, checks with bash, and gives up.
  const tools = lib.toolsForProfile('coder', work);
  if (!tools.ok) throw new Error(tools.error);
  const provider = lib.createScriptedProvider([
    { toolCalls: [{ name: 'write', arguments: { path: 'result.txt', content: big } }] },
    { toolCalls: [{ name: 'bash', arguments: { command: 'df -k . | tail -1; cp keep.txt copy.txt' } }] },
    { text: 'The disk is full; I could not write result.txt.' },
  ]);
  const outcome = await lib.runAgent(
    {
      runId,
      name: 'solo',
      profile: 'coder',
      task: 'write result.txt',
      system: 'test agent',
      tools: tools.tools,
      provider,
      maxSteps: 10,
    },
    { log, scrubber: lib.createScrubber([]), budget: new lib.Budget({}), history: [] },
  );
  await log.flush();
  const loopEvents = (await log.read(runId)).map((e) => ({ kind: e.kind, data: e.data }));

  rmSync(join(dir, 'filler'));
  rmSync(join(work, 'out.bin'), { force: true });
  const afterFree = await createWriteTool(work).run({ path: 'new/deep/file.txt', content: big }, {});
  return {
    filled,
    write,
    overwrite,
    edit,
    bash,
    echo,
    filesWhenFull,
    keepWhenFull,
    outcome,
    loopEvents,
    afterFree,
  };
}
