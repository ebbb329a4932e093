import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';
import type { Logger } from '../../runtime/logger.js';
import { unpackTemplate } from './template-archive.js';

/**
 * How this process starts PGlite on a data folder, so a one-shot command stays light:
 * - a new folder is normally made by initdb, which PGlite runs in WebAssembly (~9 s and
 *   ~0.8 GB resident on two cores). The result is the same for every folder of one PGlite
 *   build, so the first one is kept as a template in the user's cache and later new folders
 *   are unpacked from it (template-archive.ts; well under a second). The cache is best
 *   effort: unwritable, it is skipped and initdb runs as before;
 * - a one-shot command (not `serve`) runs with small shared buffers: its queries touch a few
 *   MB, and PGlite's default 128 MB of buffers are resident for the whole run;
 * - and compiles PGlite's WebAssembly with the baseline compiler only: optimising its 9 MB in
 *   background threads costs more CPU and memory (~1.3 s, ~90 MB) than a short run gets
 *   back, and on a busy machine it competes with the run itself.
 */
export interface PgliteStart {
  readonly options: PGliteOptions;
  /** The folder was new and no template was found: save one once PGlite has made it. */
  readonly saveTemplateTo: string | undefined;
}

/** Shared buffers of a one-shot command's PGlite (a server keeps PGlite's default). */
export const ONE_SHOT_SHARED_BUFFERS = '16MB';

const pgliteVersion = (): string | undefined => {
  try {
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    const manifest = JSON.parse(
      readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8'),
    ) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : undefined;
  } catch {
    return undefined;
  }
};

/** Where the template of this PGlite build lives; COGITAVE_CACHE_DIR=none turns it off. */
export const templatePath = (env: NodeJS.ProcessEnv = process.env): string | undefined => {
  const setting = env.COGITAVE_CACHE_DIR;
  if (setting?.toLowerCase() === 'none') return undefined;
  const version = pgliteVersion();
  if (version === undefined) return undefined;
  const base = setting ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'cogitave');
  return join(base, `pglite-${version}-datadir.tar.gz`);
};

/**
 * Before PGlite is first imported. V8 reads its WebAssembly flags when it compiles a module,
 * so setting one now holds for PGlite's; a V8 without the flag keeps its default.
 */
export const useBaselineWasmCompiler = (): void => {
  try {
    setFlagsFromString('--liftoff-only');
  } catch {
    // Only slower and heavier, never wrong.
  }
};

export const isNewDataFolder = (dataDir: string): boolean =>
  !existsSync(join(dataDir, 'PG_VERSION'));

/**
 * The template an installed package ships (scripts/pglite-template.mjs, at pack time) for this
 * PGlite build, in dist/ beside the code; absent in a checkout until `npm pack`.
 */
export const shippedTemplatePath = (): string | undefined => {
  const version = pgliteVersion();
  return version === undefined
    ? undefined
    : fileURLToPath(
        new URL(`../../../pglite-template/pglite-${version}-datadir.tar.gz`, import.meta.url),
      );
};

const readable = (path: string | undefined): Buffer | undefined => {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
};

export const pgliteStart = (
  dataDir: string,
  options: { readonly oneShot: boolean; readonly startParams: readonly string[] },
): PgliteStart => {
  const startParams = options.oneShot
    ? { startParams: [...options.startParams, '-c', `shared_buffers=${ONE_SHOT_SHARED_BUFFERS}`] }
    : {};
  if (!isNewDataFolder(dataDir)) return { options: startParams, saveTemplateTo: undefined };
  const cached = templatePath();
  // The user's cache first (made here), then the package's own.
  for (const path of [cached, shippedTemplatePath()]) {
    const archive = readable(path);
    if (archive === undefined) continue;
    try {
      unpackTemplate(archive, dataDir);
      return { options: startParams, saveTemplateTo: undefined };
    } catch {
      // A damaged template (unpacking takes back what it wrote): the next one, else initdb
      // makes the folder and its result replaces the cached one.
    }
  }
  return { options: startParams, saveTemplateTo: cached };
};

/**
 * Keeps a just-made folder as the template (before anything is written to it: it holds
 * nothing of this installation). Written aside and renamed, so a reader never sees half.
 */
export const saveTemplate = async (pglite: PGlite, path: string, logger: Logger): Promise<void> => {
  try {
    const archive = await pglite.dumpDataDir('gzip');
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const partial = `${path}.${String(process.pid)}.partial`;
    writeFileSync(partial, Buffer.from(await archive.arrayBuffer()), { mode: 0o600 });
    renameSync(partial, path);
  } catch (error) {
    logger.debug(
      { err: error, path },
      'no template of a new data folder kept (cache not writable)',
    );
  }
};
