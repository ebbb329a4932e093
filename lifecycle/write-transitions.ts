import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { renderTransitionsDocument } from './transitions.js';

/**
 * `npm run docs:lifecycle`: writes lifecycle/TRANSITIONS.md from the machine. The one file in
 * lifecycle/ that does I/O, and only as a development script. The text is run through
 * Prettier (the repository's config) so `prettier --check .` and the drift test agree.
 */
export const TRANSITIONS_PATH = fileURLToPath(new URL('./TRANSITIONS.md', import.meta.url));

export const formattedTransitionsDocument = async (): Promise<string> => {
  const config = (await resolveConfig(TRANSITIONS_PATH)) ?? {};
  return format(renderTransitionsDocument(), { ...config, filepath: TRANSITIONS_PATH });
};

const main = async (): Promise<void> => {
  const text = await formattedTransitionsDocument();
  const before = await readFile(TRANSITIONS_PATH, 'utf8').catch(() => '');
  if (before === text) {
    process.stdout.write('lifecycle/TRANSITIONS.md is up to date\n');
    return;
  }
  await writeFile(TRANSITIONS_PATH, text);
  process.stdout.write('wrote lifecycle/TRANSITIONS.md\n');
};

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
