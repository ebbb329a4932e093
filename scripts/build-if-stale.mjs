// `npm start` (and `npm run cogitave`) build only when a source changed since the last build.
// Stale means: a file or folder under the compiled sources, or a build input (package.json,
// the lock file, the tsconfigs, the build script), is newer than dist/.build-stamp (written by
// scripts/build.mjs after a successful build). Folders count because deleting a file touches
// its folder. `--quiet` says nothing when the build is up to date (for the CLI, run often).
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

process.chdir(join(dirname(fileURLToPath(import.meta.url)), '..'));

const SOURCES = ['bin', 'services', 'lifecycle', 'projections', 'mcp-gateway'];
const INPUTS = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  join('scripts', 'build.mjs'),
];
const STAMP = join('dist', '.build-stamp');
const quiet = process.argv.includes('--quiet');

const mtimeOf = (path) => {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
};

const newestUnder = (dir) => {
  let newest = mtimeOf(dir) ?? 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(path) : (mtimeOf(path) ?? 0));
  }
  return newest;
};

const built = mtimeOf(STAMP);
const newest = Math.max(...SOURCES.map(newestUnder), ...INPUTS.map((path) => mtimeOf(path) ?? 0));
if (built !== undefined && built >= newest) {
  if (!quiet)
    process.stderr.write('build is up to date (no source changed since the last build)\n');
} else {
  // Said before building, so a first start does not look like a hang.
  process.stderr.write('building dist/ (first start or a source changed)…\n');
  const started = Date.now();
  execFileSync(process.execPath, [join('scripts', 'build.mjs')], { stdio: 'inherit' });
  process.stderr.write(`built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
