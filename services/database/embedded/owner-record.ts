import { randomUUID } from 'node:crypto';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { CogitaveError } from '../../runtime/errors.js';
import { socketPathIn } from './channel.js';

/**
 * What the owner of an embedded data folder publishes for the other processes: who it is and
 * where its channel listens. It lives in the folder's private directory (`owner/`, 0700), so
 * only the folder's user can read or replace it, and a client never connects to a socket
 * someone else chose.
 */
export const ownerRecordSchema = z.object({
  pid: z.number().int().positive(),
  /** The command line of the owner, e.g. "cogitave serve". */
  command: z.string(),
  since: z.string(),
  /** The folder of the channel's socket (`pg`'s host). */
  socketDirectory: z.string(),
  port: z.number().int().positive(),
  /**
   * The owner's MCP socket (see mcp-socket.ts), once it listens: a `serve --stdio` on this
   * folder attaches there. Optional: owners that serve no MCP, and older versions, have none.
   */
  mcpSocket: z.string().optional(),
});
export type OwnerRecord = z.infer<typeof ownerRecordSchema>;

const RECORD_FILE = 'owner.json';

/** Whether the owner is a `serve` process (which keeps the folder until it is stopped). */
export const isServeRecord = (record: OwnerRecord | undefined): record is OwnerRecord =>
  record !== undefined && /\bserve\b/.test(record.command);

export const privateDirectoryOf = (dataDir: string): string => join(dataDir, 'owner');

/**
 * Creates `path` as a directory only its user may enter (0700), or checks an existing one:
 * a symbolic link, someone else's folder or a folder others may write to is refused rather
 * than trusted with the owner's socket.
 */
export const ensurePrivateDirectory = (path: string): void => {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const stat = lstatSync(path);
  const uid = process.getuid?.();
  if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid)) {
    throw new CogitaveError(
      'CONFIG_INVALID',
      `COGITAVE_DATA_DIR: ${path} must be a directory of this user (uid ${String(uid)}), not a link or another user's folder`,
    );
  }
  if ((stat.mode & 0o077) !== 0) chmodSync(path, 0o700);
};

// sun_path holds 104 bytes on macOS and 108 on Linux, the terminating NUL included.
const MAX_SOCKET_PATH = 103;

/**
 * Where the channel's socket goes: the folder's private directory, or, when that path is too
 * long for a Unix socket, a private directory of this user under the system's temporary
 * folder, named after the data folder.
 */
export const socketDirectoryFor = (dataDir: string): string => {
  const preferred = privateDirectoryOf(dataDir);
  if (Buffer.byteLength(socketPathIn(preferred)) <= MAX_SOCKET_PATH) return preferred;
  const base = join(tmpdir(), `cogitave-${String(process.getuid?.() ?? 'user')}`);
  ensurePrivateDirectory(base);
  const directory = join(base, createHash('sha256').update(dataDir).digest('hex').slice(0, 16));
  ensurePrivateDirectory(directory);
  return directory;
};

export const writeOwnerRecord = (dataDir: string, record: OwnerRecord): void => {
  const path = join(privateDirectoryOf(dataDir), RECORD_FILE);
  const temporary = `${path}.${randomUUID()}`;
  writeFileSync(temporary, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(temporary, path);
};

/**
 * Rewrites this process's record with `mcpSocket` set (a path) or removed (undefined), so
 * other processes learn when the MCP socket starts and stops listening. A record that is not
 * this process's is left alone.
 */
export const publishMcpSocket = (dataDir: string, mcpSocket: string | undefined): void => {
  const record = readOwnerRecord(dataDir);
  if (record?.pid !== process.pid) return;
  const next: OwnerRecord = { ...record };
  delete next.mcpSocket;
  writeOwnerRecord(dataDir, mcpSocket === undefined ? next : { ...next, mcpSocket });
};

/** Whether a process with this pid runs (EPERM: it does, as another user). */
const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * The record of the process that owns the folder. One left by an owner that was killed
 * (its pid no longer runs) is no record: whoever holds the lock now has not written its own
 * yet, and a dead `serve` must not make a new one refuse to start.
 */
export const readOwnerRecord = (dataDir: string): OwnerRecord | undefined => {
  try {
    const parsed = ownerRecordSchema.safeParse(
      JSON.parse(readFileSync(join(privateDirectoryOf(dataDir), RECORD_FILE), 'utf8')),
    );
    return parsed.success && isRunning(parsed.data.pid) ? parsed.data : undefined;
  } catch {
    return undefined;
  }
};

/** Removes the record if it is still this process's. */
export const removeOwnerRecord = (dataDir: string): void => {
  if (readOwnerRecord(dataDir)?.pid === process.pid) {
    rmSync(join(privateDirectoryOf(dataDir), RECORD_FILE), { force: true });
  }
};
