// `npm start` builds only when a source changed since the last build, so a second start is
// not a full TypeScript compile. Stale means: a file or folder under the compiled sources, or
// a build input (package.json, the lock file, the tsconfigs), is newer than dist/.build-stamp
// (written after a successful build). Folders count because deleting a file touches its folder.
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const SOURCES = ['bin', 'services', 'lifecycle', 'projections', 'mcp-gateway'];
const INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json'];
const STAMP = join('dist', '.build-stamp');

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
  process.stderr.write('build is up to date (no source changed since the last build)\n');
} else {
  const started = Date.now();
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', 'build'], {
    stdio: 'inherit',
  });
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
  process.stderr.write(`built in ${Math.round((Date.now() - started) / 1000)} s\n`);
}
