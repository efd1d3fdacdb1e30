/**
 * A chaos model: a seeded random policy whose turns are malformed and hostile — invalid JSON
 * arguments, wrong argument types, unknown tools, path escapes (relative, absolute, through symbolic
 * links), 10 MB arguments, NUL bytes and lone surrogates, thousands of tool calls in one turn, calls
 * cut off at max_tokens, hostile shell commands, FIFOs and gigabyte files made on the fly, duplicate
 * call ids — mixed with ordinary calls. After `steps` turns it answers with a final turn (often an
 * empty one). `wireFailures` adds rare wire-level faults (5xx, 429, dropped connections, a slow answer)
 * for the fake provider to inject.
 *
 * Every path meant to land outside the checkout contains `marker`, so a test can search the disk for
 * it afterwards (nothing may be found).
 */
import type { ScriptedPolicy, ScriptedTurn } from '../../src/model/providers/scripted.js';
import type { Failure, FailureContext } from './failures.js';

export interface ChaosOptions {
  seed: number;
  /** Turns before the final one. */
  steps: number;
  /** A unique string in every escape path (see above). */
  marker: string;
  /** Turns with 10 MB arguments at most (each makes every later request 10 MB bigger). Default 1. */
  maxHuge?: number;
  /** Turns with thousands of calls at most. Default 1. */
  maxMany?: number;
}

export interface ChaosModel {
  policy: ScriptedPolicy;
  /** Turns answered so far, by kind. */
  stats(): { turns: number; toolCalls: number; byKind: Record<string, number> };
}

type Call = { name: string; arguments: unknown; id?: string };

/** The project's seeded generator (src/core/random.ts): the same sequence for the same seed. */
import { seededRandom } from '../../src/core/random.js';

export { seededRandom };

const TEN_MB = 10 * 1024 * 1024;

export function createChaosModel(options: ChaosOptions): ChaosModel {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1));
  const m = options.marker;
  let turns = 0;
  let toolCalls = 0;
  let huge = 0;
  let many = 0;
  let serial = 0;
  const byKind: Record<string, number> = {};

  const escapePaths = (): string[] => [
    '../../etc/passwd',
    '/etc/passwd',
    '/etc/shadow',
    `${'../'.repeat(40)}etc/passwd`,
    `../${m}-up.txt`,
    `../../${m}-up2.txt`,
    `/tmp/${m}-abs.txt`,
    `/${m}-root.txt`,
    `a/../../${m}-dotdot.txt`,
    `./../${m}-dot.txt`,
    `${m}\u0000.txt`,
    '..',
    '.git/config',
    '.git/hooks/pre-commit',
    '.git',
    '~/.ssh/id_rsa',
    '/proc/self/environ',
    '/dev/zero',
    'file:///etc/passwd',
    'C:\\Windows\\win.ini',
    `   ../${m}-spaces.txt`,
  ];

  const validCall = (): Call =>
    pick<() => Call>([
      () => ({ name: 'read', arguments: { path: 'README.md' } }),
      () => ({ name: 'read', arguments: { path: 'src/app.txt', offset: int(1, 5), limit: int(1, 3) } }),
      () => ({ name: 'write', arguments: { path: `notes/n-${serial++}.txt`, content: `note ${serial}\n` } }),
      () => ({
        name: 'edit',
        arguments: { path: 'src/app.txt', old: 'line 2', new: `line 2 (${serial++})` },
      }),
      () => ({ name: 'ls', arguments: { path: pick(['.', 'src', 'notes']) } }),
      () => ({ name: 'grep', arguments: { pattern: pick(['chaos', 'line [0-9]', '^#']) } }),
      () => ({
        name: 'bash',
        arguments: { command: pick(['ls -la', 'git status --short | head -5', 'wc -l src/app.txt']) },
      }),
    ])();

  const generators: Array<{ kind: string; weight: number; make: () => ScriptedTurn | null }> = [
    {
      kind: 'valid',
      weight: 14,
      make: () => ({ toolCalls: [validCall(), ...(random() < 0.3 ? [validCall()] : [])] }),
    },
    {
      kind: 'invalid_json',
      weight: 10,
      make: () => ({
        toolCalls: [
          {
            name: pick(['read', 'write', 'edit', 'bash', 'grep', 'ls']),
            arguments: pick([
              '{"path": "README.md"',
              '{path: README.md}',
              'null',
              '[]',
              '"just a string"',
              '42',
              '{"path": "a"}{"path": "b"}',
              '{"path": "README.md", "offset": 1e999}',
              '\u0000{}',
              '{"path":"\uD800"}',
              '{"command": "ls\u0000"}',
              '{"path": "README.md",}',
              "{'path': 'README.md'}",
              ' ',
              '\uFEFF{"path": "README.md"}',
            ]),
          },
        ],
      }),
    },
    {
      kind: 'wrong_types',
      weight: 10,
      make: () => ({
        toolCalls: [
          pick<Call>([
            { name: 'read', arguments: { path: 42 } },
            { name: 'read', arguments: { path: null } },
            { name: 'read', arguments: { path: ['README.md'] } },
            { name: 'read', arguments: { path: { toString: 'README.md' } } },
            { name: 'read', arguments: { path: 'README.md', offset: 0 } },
            { name: 'read', arguments: { path: 'README.md', offset: -5, limit: 'ten' } },
            { name: 'read', arguments: { path: 'README.md', limit: 1.5 } },
            { name: 'read', arguments: { path: 'README.md', offset: 1e300 } },
            { name: 'write', arguments: { path: 'x.txt', content: 42 } },
            { name: 'write', arguments: { path: 'x.txt', content: { a: 1 } } },
            { name: 'write', arguments: { path: '', content: 'x' } },
            { name: 'write', arguments: { path: '.', content: 'x' } },
            { name: 'write', arguments: { path: 'src', content: 'x' } },
            { name: 'bash', arguments: { command: 42 } },
            { name: 'bash', arguments: { command: '' } },
            { name: 'bash', arguments: { command: 'ls', timeout_s: -1 } },
            { name: 'bash', arguments: { command: 'ls', timeout_s: 1e12 } },
            { name: 'edit', arguments: { path: 'src/app.txt', old: '', new: 'x' } },
            { name: 'edit', arguments: { path: 'src/app.txt', old: 'line', new: 'x' } },
            { name: 'edit', arguments: { path: 'src/app.txt', old: 'nowhere', new: 'x' } },
            { name: 'grep', arguments: { pattern: '' } },
            { name: 'grep', arguments: { pattern: '(' } },
            { name: 'grep', arguments: { pattern: '--help' } },
            { name: 'ls', arguments: { path: true } },
            {
              name: 'read',
              arguments:
                '{"path":"README.md","__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}',
            },
          ]),
        ],
      }),
    },
    {
      kind: 'unknown_tool',
      weight: 8,
      make: () => ({
        toolCalls: [
          {
            name: pick([
              'rm_rf',
              'READ',
              ' read',
              'read ',
              'bash; rm -rf /',
              '../bash',
              '__proto__',
              'constructor',
              'toString',
              'hasOwnProperty',
              'x'.repeat(5000),
              'read\u0000',
              '\uD83D\uDE00',
              'functions.read',
            ]),
            arguments: { path: 'README.md' },
          },
        ],
      }),
    },
    {
      kind: 'path_escape',
      weight: 12,
      make: () => {
        const path = pick(escapePaths());
        const tool = pick(['read', 'write', 'edit', 'ls', 'grep']);
        const args =
          tool === 'write'
            ? { path, content: `escaped ${m}\n` }
            : tool === 'edit'
              ? { path, old: 'root', new: `pwned ${m}` }
              : tool === 'grep'
                ? { pattern: 'root', path }
                : { path };
        return { toolCalls: [{ name: tool, arguments: args }] };
      },
    },
    {
      kind: 'symlink_escape',
      weight: 4,
      make: () => {
        const link = `link-${serial++}`;
        const target = pick(['/etc', '/tmp', '..', '../..', '/']);
        return {
          toolCalls: [
            { name: 'bash', arguments: { command: `ln -sfn ${target} ${link} && echo linked` } },
            { name: 'write', arguments: { path: `${link}/${m}-via-link.txt`, content: 'escaped' } },
            { name: 'read', arguments: { path: `${link}/passwd` } },
            { name: 'edit', arguments: { path: `${link}/passwd`, old: 'root', new: 'pwned' } },
            { name: 'ls', arguments: { path: link } },
            { name: 'grep', arguments: { pattern: 'root', path: link } },
            { name: 'bash', arguments: { command: `rm -f ${link}` } },
          ],
        };
      },
    },
    {
      kind: 'huge_arguments',
      weight: 2,
      make: () => {
        if (huge >= (options.maxHuge ?? 1)) return null;
        huge++;
        return pick<() => ScriptedTurn>([
          () => ({
            toolCalls: [{ name: 'write', arguments: { path: 'big.txt', content: 'x'.repeat(TEN_MB) } }],
          }),
          () => ({
            toolCalls: [
              { name: 'write', arguments: `{"path": "big.txt", "content": "${'y'.repeat(TEN_MB)}` },
            ],
          }),
          () => ({
            toolCalls: [{ name: 'bash', arguments: { command: `echo ${'z'.repeat(TEN_MB)} | wc -c` } }],
          }),
          () => ({ toolCalls: [{ name: 'read', arguments: { path: 'a'.repeat(TEN_MB) } }] }),
        ])();
      },
    },
    {
      kind: 'binary',
      weight: 8,
      make: () => {
        const name = `bin-${serial++}.dat`;
        let junk = '';
        for (let i = 0; i < 512; i++) junk += String.fromCharCode(int(0, 0xffff));
        return {
          text: `binary \u0000 text \uD800 ${junk.slice(0, 64)}`,
          toolCalls: pick<Call[]>([
            [
              { name: 'write', arguments: { path: name, content: `\u0000\u0001${junk}\u0000` } },
              { name: 'read', arguments: { path: name } },
              { name: 'grep', arguments: { pattern: '\u0000', path: name } },
              { name: 'edit', arguments: { path: name, old: '\u0000\u0001', new: 'text' } },
            ],
            [
              {
                name: 'bash',
                arguments: { command: 'printf "\\x00\\x01\\xff\\xfe"; head -c 4000 /dev/urandom' },
              },
            ],
            [{ name: 'bash', arguments: { command: 'echo a\u0000b' } }],
            [{ name: 'grep', arguments: { pattern: `line\u0000${junk.slice(0, 8)}` } }],
            [
              {
                name: 'write',
                arguments: { path: `${junk.slice(0, 20).replace(/[/\\]/g, '_')}.txt`, content: junk },
              },
            ],
          ]),
        };
      },
    },
    {
      kind: 'hostile_files',
      weight: 4,
      make: () => {
        const name = `hostile-${serial++}`;
        return {
          toolCalls: pick<Call[]>([
            [
              { name: 'bash', arguments: { command: `mkfifo ${name}.fifo && echo made` } },
              { name: 'read', arguments: { path: `${name}.fifo` } },
              { name: 'grep', arguments: { pattern: 'x', path: `${name}.fifo` } },
              { name: 'edit', arguments: { path: `${name}.fifo`, old: 'a', new: 'b' } },
              { name: 'grep', arguments: { pattern: 'chaos' } },
              { name: 'bash', arguments: { command: `rm -f ${name}.fifo` } },
            ],
            [
              { name: 'bash', arguments: { command: `truncate -s 1G ${name}.bin && ls -la ${name}.bin` } },
              { name: 'read', arguments: { path: `${name}.bin` } },
              { name: 'grep', arguments: { pattern: 'x', path: `${name}.bin` } },
              { name: 'edit', arguments: { path: `${name}.bin`, old: 'a', new: 'b' } },
              { name: 'bash', arguments: { command: `rm -f ${name}.bin` } },
            ],
          ]),
        };
      },
    },
    {
      // In-process tools only (a grep or bash call starts a process: thousands would take minutes).
      kind: 'many_calls',
      weight: 1,
      make: () => {
        if (many >= (options.maxMany ?? 1)) return null;
        many++;
        const count = int(1000, 2000);
        const calls: Call[] = [];
        for (let i = 0; i < count; i++) {
          calls.push(
            pick<Call>([
              { name: 'read', arguments: { path: 'README.md', limit: 1 } },
              { name: 'ls', arguments: { path: 'src' } },
              { name: 'nope', arguments: {} },
              { name: 'read', arguments: '{"path": ' },
              { name: 'write', arguments: { path: '/etc/passwd', content: 'x' } },
              { name: 'read', arguments: { path: '../../etc/passwd' } },
              { name: 'edit', arguments: { path: 'README.md', old: 'absent', new: 'x' } },
            ]),
          );
        }
        return { toolCalls: calls };
      },
    },
    {
      kind: 'max_tokens',
      weight: 5,
      make: () => ({
        stopReason: 'max_tokens',
        toolCalls: [
          { name: 'write', arguments: '{"path": "cut.txt", "content": "half a thou' },
          ...(random() < 0.5
            ? [{ name: 'bash', arguments: { command: `echo pwned > /tmp/${m}-cut.txt` } }]
            : []),
        ],
      }),
    },
    {
      kind: 'hostile_bash',
      weight: 8,
      make: () => ({
        toolCalls: [
          {
            name: 'bash',
            arguments: pick<Record<string, unknown>>([
              { command: `echo pwned > /tmp/${m}-bash.txt; cat /tmp/${m}-bash.txt` },
              { command: `echo pwned > ../${m}-bash-up.txt` },
              { command: `touch /${m}-bash-root; echo $?` },
              { command: `echo pwned >> /etc/passwd; echo $?` },
              { command: `mkdir -p $HOME/${m}-home && echo made` },
              { command: `cd / && touch ${m}-cd-root; echo $?` },
              { command: 'cat /etc/shadow | head -1' },
              { command: 'sleep 30', timeout_s: 0.3 },
              { command: 'yes chaos | head -c 3000000' },
              { command: 'head -c 5000000 /dev/zero' },
              { command: 'exec 1>&-; echo closed' },
              { command: 'kill -9 $$' },
              { command: '(sleep 100 &) ; echo background' },
              { command: 'mkfifo p-$$ && cat p-$$', timeout_s: 0.3 },
              { command: 'env | grep -ci -E "key|token|secret" || true' },
              { command: 'git -C .. status 2>&1 | head -3' },
              { command: `git config user.name ${m}; git log --oneline | head -3` },
              { command: 'curl -sS -m 2 http://127.0.0.1:1/ 2>&1 | head -2; echo exit $?' },
              { command: 'ulimit -f 10; head -c 100000 /dev/zero > capped.bin; echo $?; rm -f capped.bin' },
              { command: 'printf "%s" "$(head -c 100000 /dev/urandom | base64 -w0)"' },
              { command: `echo "\\$(rm -rf /tmp/${m}-nothing)"` },
            ]),
          },
        ],
      }),
    },
    {
      kind: 'odd_ids',
      weight: 3,
      make: () => ({
        toolCalls: [
          { name: 'read', arguments: { path: 'README.md' }, id: 'same' },
          { name: 'ls', arguments: {}, id: 'same' },
          { name: 'read', arguments: { path: 'src/app.txt' }, id: 'i'.repeat(2000) },
          { name: 'grep', arguments: { pattern: 'chaos' }, id: `id\u0000${serial++}` },
        ],
      }),
    },
    {
      kind: 'text_garbage',
      weight: 3,
      make: () => ({
        text: `${'\u0000\uD800\uDFFF\u202E'.repeat(int(1, 100))}${'word '.repeat(int(1, 20_000))}`,
        toolCalls: [validCall()],
      }),
    },
  ];
  const totalWeight = generators.reduce((sum, g) => sum + g.weight, 0);

  const finalTurn = (): ScriptedTurn =>
    pick<ScriptedTurn>([
      {},
      { text: '' },
      { text: '', stopReason: 'max_tokens' },
      { text: 'done \u0000 with \uD800 garbage' },
      { text: 'All done.' },
    ]);

  const next = (): { kind: string; turn: ScriptedTurn } => {
    for (;;) {
      let roll = random() * totalWeight;
      for (const g of generators) {
        roll -= g.weight;
        if (roll > 0) continue;
        const turn = g.make();
        if (turn) return { kind: g.kind, turn };
        break;
      }
    }
  };

  return {
    policy: () => {
      turns++;
      const { kind, turn } = turns > options.steps ? { kind: 'final', turn: finalTurn() } : next();
      byKind[kind] = (byKind[kind] ?? 0) + 1;
      toolCalls += turn.toolCalls?.length ?? 0;
      return turn;
    },
    stats: () => ({ turns, toolCalls, byKind: { ...byKind } }),
  };
}

/** Rare wire faults for the fake provider: retryable ones (5xx, 429, drops, slowness). */
export function chaosWireFailures(seed: number): (ctx: FailureContext) => Failure | undefined {
  const random = seededRandom(seed ^ 0x5eed);
  return () => {
    const roll = random();
    if (roll < 0.01) return { status: 500, message: 'chaos: internal error' };
    if (roll < 0.02) return { status: 429, retryAfterMs: 5, message: 'chaos: slow down' };
    if (roll < 0.025) return { drop: true };
    if (roll < 0.03) return { status: 529, message: 'chaos: overloaded' };
    if (roll < 0.035) return { delayMs: 50 };
    return undefined;
  };
}
