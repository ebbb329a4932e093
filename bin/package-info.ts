import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package's own package.json, found upwards from this file (works from source and dist). */
export const readPackageInfo = (): { name: string; version: string } => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return { name: 'cogitave-core', version: '0.0.0' };
    dir = parent;
  }
  return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
  };
};

/**
 * The quickest way to run this CLI again, as a person would type it, judged from how this
 * process was started (`process.argv[1]`): the installed binary (`cogitave`, or `npx cogitave`
 * inside the project that installed it), the build (`node dist/bin/cogitave.js`, from where
 * they stand), or, from the TypeScript sources, `npm run cogitave --` (which runs the build,
 * rebuilt if stale, instead of compiling every module again).
 */
export const cliCommand = (script: string | undefined, cwd: string): string => {
  if (script === undefined) return 'cogitave';
  const parts = script.split(/[\\/]/);
  const file = parts.at(-1) ?? '';
  const modules = parts.indexOf('node_modules');
  if (modules !== -1) {
    // npx finds the project's own binary only from inside the project; elsewhere it would
    // look for a package named cogitave on the registry. From outside: the path itself.
    const project = parts.slice(0, modules).join(sep) || sep;
    if (isInside(cwd, project)) return 'npx cogitave';
    return file.endsWith('.js') ? `node ${script}` : script;
  }
  if (file === 'cogitave' || file === 'cogitave.cmd') return 'cogitave';
  if (file.endsWith('.ts')) return 'npm run cogitave --';
  return `node ${isInside(cwd, script) ? relative(cwd, script) : script}`;
};

const isInside = (dir: string, path: string): boolean => {
  const fromDir = relative(dir, path);
  return !fromDir.startsWith('..') && !isAbsolute(fromDir);
};
