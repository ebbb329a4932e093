import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
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
 * inside a project), the build (`node dist/bin/cogitave.js`, from where they stand), or, from
 * the TypeScript sources, `npm run cogitave --` (which runs the build, rebuilt if stale, instead
 * of compiling every module again).
 */
export const cliCommand = (script: string | undefined, cwd: string): string => {
  if (script === undefined) return 'cogitave';
  const parts = script.split(/[\\/]/);
  if (parts.includes('node_modules')) return 'npx cogitave';
  const file = parts.at(-1) ?? '';
  if (file === 'cogitave' || file === 'cogitave.cmd') return 'cogitave';
  if (file.endsWith('.ts')) return 'npm run cogitave --';
  const fromHere = relative(cwd, script);
  return `node ${fromHere.startsWith('..') || isAbsolute(fromHere) ? script : fromHere}`;
};
