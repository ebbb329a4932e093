import { appendFile, mkdir, open, readFile, rename } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CogitaveError } from '../runtime/errors.js';
import { formatDigest, parseDigest, type Digest } from './digest.js';

/**
 * Places a digest is published to, outside the database: a folder (always) and, in GitHub
 * mode, the repository (an external witness whose history the deployment's operators do not
 * control alone).
 */
export interface DigestWitness {
  /** For logs and `audit.digests.published_to`, e.g. `folder:/var/lib/cogitave/digests`. */
  readonly name: string;
  publish(digest: Digest): Promise<void>;
}

export const DIGEST_LOG_FILE = 'digests.jsonl';
export const LATEST_DIGEST_FILE = 'latest.json';

/**
 * A folder holding `digests.jsonl` (every digest, one line each, appended) and `latest.json`
 * (the newest, replaced atomically). Both are flushed to disk before `publish` resolves.
 */
export const folderWitness = (folder: string): DigestWitness => {
  const dir = resolve(folder);
  return {
    name: `folder:${dir}`,
    publish: async (digest) => {
      await mkdir(dir, { recursive: true });
      const line = `${formatDigest(digest)}\n`;
      await appendFile(join(dir, DIGEST_LOG_FILE), line, { flush: true });
      const temporary = join(dir, `.${LATEST_DIGEST_FILE}.${process.pid}`);
      const handle = await open(temporary, 'w');
      try {
        await handle.writeFile(line);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temporary, join(dir, LATEST_DIGEST_FILE));
    },
  };
};

const readIfPresent = async (path: string): Promise<string | undefined> => {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CogitaveError(
      'UNAVAILABLE',
      `cannot read ${path}: ${(error as Error).message}`,
      {},
      { cause: error },
    );
  }
};

export interface PublishedDigests {
  /** The newest published digest, or undefined when the folder has none. */
  readonly latest: Digest | undefined;
  /** Every published digest, oldest first (lines that do not parse are left out). */
  readonly all: readonly Digest[];
  /** Lines of digests.jsonl that are not digests, by line number. */
  readonly unreadable: readonly number[];
}

/** What a digest folder holds. A `latest.json` that does not parse is an error, not absence. */
export const readPublishedDigests = async (folder: string): Promise<PublishedDigests> => {
  const dir = resolve(folder);
  const latestText = await readIfPresent(join(dir, LATEST_DIGEST_FILE));
  const logText = (await readIfPresent(join(dir, DIGEST_LOG_FILE))) ?? '';
  const all: Digest[] = [];
  const unreadable: number[] = [];
  logText.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      all.push(parseDigest(line));
    } catch {
      unreadable.push(index + 1);
    }
  });
  const latest =
    latestText === undefined
      ? all.at(-1)
      : parseDigest(latestText.trim(), join(dir, LATEST_DIGEST_FILE));
  return { latest, all, unreadable };
};
