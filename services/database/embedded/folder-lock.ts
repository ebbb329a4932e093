import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  writeSync,
} from 'node:fs';
import { rmSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';

/**
 * The exclusive lock on an embedded data folder. Whoever holds it is the folder's only owner;
 * it must be released when the process dies however it dies, and a dead owner's lock must
 * never be mistaken for a live one's (or the other way round).
 *
 * - Linux: a listening socket in the abstract namespace, named after the folder's device and
 *   inode. Binding is atomic, and the kernel unbinds it when the process exits, kill -9
 *   included, so there is no stale lock to detect and no pid to be reused.
 * - Windows: a named pipe, with the same properties.
 * - Elsewhere (macOS, BSD): a lock file created exclusively, holding the owner's pid. It is
 *   stale when that pid no longer runs; a reused pid makes it look held (the safe mistake:
 *   a refusal naming the pid and the file, never two owners). Two processes recovering the
 *   same stale file at the same instant is the one race left on these platforms.
 *
 * The lock socket answers nothing: a connection is closed at once.
 */
export interface FolderLock {
  /** How the lock is held, for diagnostics. */
  readonly mechanism: 'abstract-socket' | 'named-pipe' | 'lock-file';
  release(): Promise<void>;
}

const folderKey = (dataDir: string): string => {
  const stat = statSync(dataDir);
  return createHash('sha256')
    .update(`${String(stat.dev)}:${String(stat.ino)}`)
    .digest('hex')
    .slice(0, 32);
};

const bindExclusive = (path: string): Promise<net.Server | undefined> =>
  new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') resolve(undefined);
      else reject(error);
    });
    server.listen({ path, exclusive: true }, () => {
      server.removeAllListeners('error');
      server.on('error', () => undefined);
      // The lock must not keep a finished process alive.
      server.unref();
      resolve(server);
    });
  });

const socketLock = async (
  path: string,
  mechanism: FolderLock['mechanism'],
): Promise<FolderLock | undefined> => {
  const server = await bindExclusive(path);
  if (!server) return undefined;
  return {
    mechanism,
    release: () =>
      new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
};

/** The lock file of the fallback, inside the folder's private channel directory. */
export const LOCK_FILE = 'owner.lock';

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const fileLock = (directory: string): FolderLock | undefined => {
  const path = join(directory, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      const fd = openSync(path, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return {
        mechanism: 'lock-file',
        release: () => {
          rmSync(path, { force: true });
          return Promise.resolve();
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let pid: number;
    try {
      pid = Number(readFileSync(path, 'utf8'));
    } catch {
      continue; // released meanwhile
    }
    if (Number.isInteger(pid) && pid > 0 && isRunning(pid)) return undefined;
    // Stale: move it aside (atomic), so only one recoverer removes this very file.
    try {
      renameSync(path, `${path}.stale-${String(process.pid)}`);
      rmSync(`${path}.stale-${String(process.pid)}`, { force: true });
    } catch {
      // Someone else recovered it first; try again.
    }
  }
  return undefined;
};

/**
 * Takes the lock on `dataDir` (an existing folder) without waiting; undefined when another
 * process holds it. `privateDir` is the folder's owner-only directory (lock file fallback).
 */
export const tryLockFolder = async (
  dataDir: string,
  privateDir: string,
): Promise<FolderLock | undefined> => {
  if (process.platform === 'linux') {
    return socketLock(`\0cogitave-data-${folderKey(dataDir)}`, 'abstract-socket');
  }
  if (process.platform === 'win32') {
    return socketLock(`\\\\?\\pipe\\cogitave-data-${folderKey(dataDir)}`, 'named-pipe');
  }
  return fileLock(privateDir);
};
