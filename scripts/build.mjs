// `npm run build`: TypeScript sources to dist/, one JavaScript file per source file, in
// seconds. esbuild only strips types (type checking is `npm run typecheck`, part of `npm
// test`); it does not bundle, because the tree itself is part of how the product runs: worker
// threads load projections and workers by module URL, and migrations, the shipped corpus and
// the console's assets are read relative to `import.meta.url`. So dist/ mirrors the sources.
import { build } from 'esbuild';
import { chmodSync, cpSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

/** The folders tsconfig.build.json includes: everything that runs, no tests. */
const SOURCES = ['bin', 'services', 'lifecycle', 'projections', 'mcp-gateway'];
const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
/**
 * dist/ of this checkout, or the folder given as the one argument (a test lays out an image's
 * /app with it). It is emptied first, so it must be named dist.
 */
const OUT = resolve(process.argv[2] ?? join(ROOT, 'dist'));
if (basename(OUT) !== 'dist') throw new Error(`build: ${OUT} is not a folder named dist`);
process.chdir(ROOT);
/** Documentation shipped as a catalog: data (its .ts files are samples), copied as is. */
const CORPUS = join('services', 'catalog', 'corpus');
const CONSOLE_ASSETS = join('mcp-gateway', 'console', 'assets');
const CLI = join(OUT, 'bin', 'cogitave.js');
/** When dist/ was last built whole: scripts/build-if-stale.mjs compares sources with it. */
const STAMP = join(OUT, '.build-stamp');

const isProductSource = (path) =>
  path.endsWith('.ts') && !path.endsWith('.d.ts') && !path.endsWith('.test.ts');

/** Files under `dir` for which `keep(path)` holds, skipping the corpus (copied, not compiled). */
const filesUnder = (dir, keep) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (path === CORPUS) return [];
    if (entry.isDirectory()) return filesUnder(path, keep);
    return entry.isFile() && keep(path) ? [path] : [];
  });

const started = process.hrtime.bigint();

// Stale output would still be importable (a deleted module, a renamed migration): start empty.
rmSync(OUT, { recursive: true, force: true });

const entryPoints = SOURCES.flatMap((dir) => filesUnder(dir, isProductSource));
await build({
  entryPoints,
  outdir: OUT,
  outbase: '.',
  bundle: false,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  tsconfig: 'tsconfig.build.json',
  logLevel: 'warning',
});

// The files the code reads at run time: SQL migrations beside their modules, the corpus, the
// console's static assets.
for (const file of SOURCES.flatMap((dir) => filesUnder(dir, (path) => path.endsWith('.sql')))) {
  cpSync(file, join(OUT, file));
}
cpSync(CORPUS, join(OUT, CORPUS), { recursive: true });
cpSync(CONSOLE_ASSETS, join(OUT, CONSOLE_ASSETS), { recursive: true });

// esbuild keeps the shebang; the mode makes `./dist/bin/cogitave.js` runnable from a clone
// (npm sets it on install anyway).
chmodSync(CLI, 0o755);

writeFileSync(STAMP, `${new Date().toISOString()}\n`);

const ms = Number((process.hrtime.bigint() - started) / 1_000_000n);
const shown = relative(ROOT, OUT);
process.stderr.write(
  `${shown.startsWith('..') ? OUT : shown}/: ${entryPoints.length} modules in ${(ms / 1000).toFixed(1)} s\n`,
);
