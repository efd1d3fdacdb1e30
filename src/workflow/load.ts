/**
 * Loading a workflow file. `.ts` files are transpiled with the `typescript` package (types are only
 * erased, never checked); `.js`/`.mjs` are taken as they are. The resulting JavaScript is stored in the
 * run's spec, so `colony resume` runs exactly the program the run started with, and is imported from
 * a file in the run's folder. The file's default export is the program: `(w) => Promise<result>`.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WorkflowProgram } from './types.js';

export interface ProgramSource {
  /** The file as given (absolute). */
  file: string;
  /** ES module JavaScript. */
  js: string;
}

export type LoadedProgram = { ok: true; program: WorkflowProgram } | { ok: false; error: string };

/** Reads and (for .ts) transpiles a workflow file. */
export async function readProgramSource(
  file: string,
): Promise<{ ok: true; source: ProgramSource } | { ok: false; error: string }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return { ok: false, error: `cannot read workflow file ${file}: ${(err as Error).message}` };
  }
  const ext = extname(file);
  if (ext === '.js' || ext === '.mjs') return { ok: true, source: { file, js: text } };
  if (ext !== '.ts' && ext !== '.mts')
    return { ok: false, error: `workflow file must be .ts, .mts, .js or .mjs, got ${file}` };
  let ts: typeof import('typescript');
  try {
    ts = (await import('typescript')).default;
  } catch {
    return {
      ok: false,
      error:
        'running a .ts workflow needs the typescript package (npm i typescript), or pass a .js/.mjs file',
    };
  }
  const out = ts.transpileModule(text, {
    fileName: file,
    reportDiagnostics: true,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: false,
      isolatedModules: true,
    },
  });
  const errors = (out.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
  if (errors.length > 0) {
    const first = ts.flattenDiagnosticMessageText(errors[0]?.messageText ?? '', '\n');
    return { ok: false, error: `cannot transpile ${file}: ${first}` };
  }
  return { ok: true, source: { file, js: out.outputText } };
}

/** Imports the stored JavaScript (written once per content into `dir`) and returns its default export. */
export async function programFromSource(js: string, dir: string): Promise<LoadedProgram> {
  const hash = createHash('sha256').update(js).digest('hex').slice(0, 12);
  await mkdir(dir, { recursive: true });
  const path = join(dir, `workflow-${hash}.mjs`);
  writeFileSync(path, js);
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(path).href)) as { default?: unknown };
  } catch (err) {
    return { ok: false, error: `cannot load the workflow program: ${(err as Error).message}` };
  }
  if (typeof mod.default !== 'function')
    return { ok: false, error: 'a workflow file must `export default` a function (w) => Promise<result>' };
  return { ok: true, program: mod.default as WorkflowProgram };
}

/** Reads, transpiles and imports a workflow file (tests and in-process use). */
export async function loadProgram(file: string, dir: string): Promise<LoadedProgram> {
  const read = await readProgramSource(file);
  if (!read.ok) return read;
  return programFromSource(read.source.js, dir);
}
