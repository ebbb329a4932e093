import { accessSync, constants, statfsSync, statSync, type Stats, type StatsFs } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { configInvalid } from './config.js';

/**
 * A folder setting the process writes to (the embedded database, the digests) is checked
 * before anything opens it, so a file in its place, a folder the process may not write or a
 * full disk is a configuration error naming the variable, not an ENOTDIR/EACCES/ENOSPC stack
 * from deep inside the database. Nothing is created: the folder, or its nearest existing
 * parent when it does not exist yet (the product creates it on first start), is looked at.
 */
export interface FolderCheckOptions {
  /** Refuse when the file system has less free space than this (bytes). */
  readonly minFreeBytes?: number;
  /** Injected in tests; the real one otherwise. */
  readonly statfs?: (path: string) => Pick<StatsFs, 'bavail' | 'bsize'>;
}

/** A fresh embedded database takes about 40 MB; less than this and PGlite fails midway. */
export const MIN_DATA_DIR_FREE_BYTES = 64 * 1024 * 1024;

const statOrUndefined = (path: string): Stats | undefined => {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTDIR: a parent is a file; the walk up finds it and says so.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
};

const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

export const assertWritableFolder = (
  variable: string,
  path: string,
  options: FolderCheckOptions = {},
): void => {
  const target = resolve(path);
  let existing = target;
  let stats: Stats | undefined;
  try {
    stats = statOrUndefined(existing);
    while (stats === undefined && dirname(existing) !== existing) {
      existing = dirname(existing);
      stats = statOrUndefined(existing);
    }
  } catch (error) {
    // EACCES on a parent: we may not even look.
    throw configInvalid(
      [
        `${variable}: cannot look at ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); point ${variable} at a folder this user may read and write`,
      ],
      {},
      { cause: error },
    );
  }
  if (stats === undefined) return;
  if (!stats.isDirectory()) {
    const where = existing === target ? `${path} is` : `${existing} (on the way to ${path}) is`;
    throw configInvalid([
      `${variable}: ${where} a file, not a folder; point ${variable} at a folder (or where one may be created)`,
    ]);
  }
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch (error) {
    const what = existing === target ? path : `${existing} (where ${path} would be created)`;
    const code = (error as NodeJS.ErrnoException).code ?? 'EACCES';
    throw configInvalid(
      [
        code === 'EROFS'
          ? `${variable}: ${what} is on a read-only file system (EROFS); point ${variable} at a folder on a writable disk`
          : `${variable}: ${what} is not writable by this user (${code}); fix its permissions or point ${variable} at a folder this user may write`,
      ],
      {},
      { cause: error },
    );
  }
  if (options.minFreeBytes !== undefined) {
    const { bavail, bsize } = (options.statfs ?? statfsSync)(existing);
    const free = bavail * bsize;
    if (free < options.minFreeBytes) {
      throw configInvalid([
        `${variable}: only ${megabytes(free)} free on the disk of ${path} (at least ${megabytes(options.minFreeBytes)} needed); free some space or point ${variable} at another disk`,
      ]);
    }
  }
};
