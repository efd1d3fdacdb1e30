/**
 * A CLI agent's home is writable to it in its sandbox, and Colony writes its config there again when
 * it restarts the CLI (issue 27). The real Codex, scripted by the fake provider, plants a link in its
 * home pointing at a host file (or folder) with its own shell tool, then crashes (killed by the
 * script); Colony's restart must not write through the link: the host file is unchanged. A link at
 * the config file itself is replaced by the file (the restarted Codex finishes the work); a link in
 * place of the config folder refuses the restart (the peer fails, saying why).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveHome } from '../../src/store/index.js';
import { codexPolicy } from './codex-policy.js';
import {
  brokenModulesRepo,
  CODEX_CLI,
  killAfterTool,
  OPENAI_RESPONSES,
  ofAgent,
  ofKind,
  peerCliFiles,
  processesWhere,
  runCliPeer,
  useFakeProvider,
  useTestStore,
} from './harness.js';

/** Codex's policy running `plant` as its shell command, killed once its session holds the output. */
function plantThenCrash(goal: string, plant: string, sessions: string) {
  const marker = `planted-${randomUUID()}`;
  return killAfterTool(
    'exec_command',
    codexPolicy((peer) =>
      peer === 1
        ? {
            scope: 'src/alpha/',
            command: `${plant} && printf 'fixed alpha\\n' > src/alpha/value.txt && echo ${marker}`,
            note: 'fix alpha',
          }
        : undefined,
    ),
    () => peerCliFiles('peer-1', sessions).some((file) => readFileSync(file, 'utf8').includes(marker)),
    () => processesWhere((argv) => /(^|\/)codex$/.test(argv[0] ?? '') && argv.includes(goal)),
  );
}

const victims = mkdtempSync(join(tmpdir(), 'colony-victim-'));
const VICTIM_FILE = join(victims, 'bashrc');
const VICTIM_DIR = mkdtempSync(join(victims, 'dir-'));
const ORIGINAL = "# the user's shell start-up file\n";
writeFileSync(VICTIM_FILE, ORIGINAL);

const FILE_GOAL = `fix every module (home link test ${randomUUID()})`;
const fileLink = plantThenCrash(
  FILE_GOAL,
  `ln -sfn ${VICTIM_FILE} "$HOME/.codex/config.toml"`,
  join('.codex', 'sessions'),
);
const DIR_GOAL = `fix every module (home folder link test ${randomUUID()})`;
const dirLink = plantThenCrash(
  DIR_GOAL,
  `mv "$HOME/.codex" "$HOME/.codex-moved" && ln -sfn ${VICTIM_DIR} "$HOME/.codex"`,
  join('.codex-moved', 'sessions'),
);

const store = useTestStore();
const fileFake = useFakeProvider({ policy: fileLink.policy, requireKey: OPENAI_RESPONSES.key });
const dirFake = useFakeProvider({ policy: dirLink.policy, requireKey: OPENAI_RESPONSES.key });

const homeOf = (runId: string) => join(resolveHome(), 'runs', runId, 'agent-cli', 'peer-1');

describe.skipIf(!existsSync(CODEX_CLI))('links planted in a CLI home', () => {
  it('a link at the config file: the restart replaces the link, the host file is unchanged', async () => {
    const r = brokenModulesRepo(['alpha'], 'colony-home-link-');
    const { summary, runId, events, context } = await runCliPeer(store(), fileFake(), {
      cli: 'codex',
      repo: r.dir,
      goal: FILE_GOAL,
    });
    expect(fileLink.killed().length, context).toBe(1);
    expect(readFileSync(VICTIM_FILE, 'utf8')).toBe(ORIGINAL);
    const cli = ofAgent(events, 'agent.cli', 'peer-1').map((e) => e.data.event);
    expect(cli, context).toContain('restarted');
    const config = join(homeOf(runId), '.codex', 'config.toml');
    expect(lstatSync(config).isFile()).toBe(true);
    expect(readFileSync(config, 'utf8')).toContain('model_provider = "colony"');
    expect(summary.status, context).toBe('succeeded');
    expect(ofKind(events, 'merge.landed')).toHaveLength(1);
  }, 300_000);

  it('a link in place of the config folder: the restart is refused, nothing is written on the host', async () => {
    const r = brokenModulesRepo(['alpha'], 'colony-home-dir-link-');
    const { events, context } = await runCliPeer(store(), dirFake(), {
      cli: 'codex',
      repo: r.dir,
      goal: DIR_GOAL,
    });
    expect(dirLink.killed().length, context).toBe(1);
    expect(readdirSync(VICTIM_DIR)).toEqual([]);
    expect(readFileSync(VICTIM_FILE, 'utf8')).toBe(ORIGINAL);
    const finished = ofAgent(events, 'agent.finished', 'peer-1').at(-1);
    expect(finished?.data, context).toMatchObject({ status: 'failed', stopReason: 'cli_failed' });
    expect(finished?.data.reason).toContain('.codex/config.toml');
    expect(finished?.data.reason).toContain('a symbolic link is in the way');
  }, 300_000);
});
