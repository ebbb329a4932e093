import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { canonicalJson } from '../event-store/hash-chain.js';
import { listFiles } from './corpus.js';

/**
 * What an ingest of a folder depends on, as one sha256: every file the ingest lists (path and
 * bytes), the ingest's settings, and the code that reads pages into nodes (this folder's
 * modules, as they run). Two ingests with the same fingerprint decide the same nodes, so the
 * start-up ingest can skip a folder whose fingerprint the log already records for its source:
 * reading every node's head from the log cost seconds once users' documentation is large.
 */
export const corpusFingerprint = async (
  dir: string,
  settings: Readonly<Record<string, string | boolean | null>>,
): Promise<{ readonly fingerprint: string; readonly files: number }> => {
  const hash = createHash('sha256');
  const add = (name: string, bytes: Buffer): void => {
    hash.update(`${name}\0${bytes.length}\0`, 'utf8');
    hash.update(bytes);
  };
  hash.update(`${canonicalJson(settings)}\0`, 'utf8');
  const files = await listFiles(dir);
  for (const file of files) add(`folder/${file}`, await readFile(join(dir, file)));
  const code = dirname(fileURLToPath(import.meta.url));
  const modules = (await readdir(code, { withFileTypes: true }))
    .filter((entry) => entry.isFile() && /\.(js|ts)$/.test(entry.name))
    .map((entry) => entry.name)
    .sort();
  for (const name of modules) add(`code/${name}`, await readFile(join(code, name)));
  return { fingerprint: hash.digest('hex'), files: files.length };
};
