import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

/**
 * A Postgres cluster of the test's own, on a free port, that the test may stop and start
 * without disturbing the shared server other test files use. Debian's binaries; initdb refuses
 * to run as root, so as root every command runs as the `postgres` user in a folder it owns.
 */
const run = promisify(execFile);

export const POSTGRES_BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** Why a private cluster cannot be started here, or undefined when it can. */
export const privatePostgresUnavailable = (): string | undefined =>
  existsSync(join(POSTGRES_BIN, 'initdb')) && existsSync(join(POSTGRES_BIN, 'pg_ctl'))
    ? undefined
    : `chaos tests need Postgres server binaries in ${POSTGRES_BIN} (apt-get install postgresql-15, or set POSTGRES_BIN)`;

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });

export interface PrivatePostgres {
  readonly port: number;
  /** Connection string of the `postgres` database (trust auth). */
  readonly url: string;
  /** `pg_ctl stop`: `fast` ends sessions cleanly, `immediate` is a crash (recovery on start). */
  stop(mode: 'fast' | 'immediate'): Promise<void>;
  start(): Promise<void>;
  /** Stops the cluster (if running) and deletes its folder. */
  destroy(): Promise<void>;
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

const pg = async (binary: string, args: readonly string[]): Promise<string> => {
  const path = join(POSTGRES_BIN, binary);
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', path, ...args]]
    : [path, [...args]];
  const { stdout } = await run(file, argv, { timeout: 60_000 });
  return stdout;
};

const postgresIds = async (): Promise<{ uid: number; gid: number }> => {
  const { stdout } = await run('id', ['postgres']);
  const uid = /uid=(\d+)/.exec(stdout)?.[1];
  const gid = /gid=(\d+)/.exec(stdout)?.[1];
  if (uid === undefined || gid === undefined) throw new Error(`cannot read ids: ${stdout}`);
  return { uid: Number(uid), gid: Number(gid) };
};

export const startPrivatePostgres = async (): Promise<PrivatePostgres> => {
  const root = mkdtempSync(join(tmpdir(), 'cogitave-chaos-pg-'));
  chmodSync(root, 0o755);
  if (asRoot) {
    const { uid, gid } = await postgresIds();
    chownSync(root, uid, gid);
  }
  const dataDir = join(root, 'data');
  const port = await freePort();
  // No fsync: the cluster lives for one test; durability across a *crash of the machine* is
  // not what is under test (a stopped server keeps everything it acknowledged either way).
  await pg('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  const options = [
    `-p ${String(port)}`,
    `-k ${root}`,
    "-c listen_addresses='127.0.0.1'",
    '-c fsync=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  let running = false;
  const start = async (): Promise<void> => {
    await pg('pg_ctl', [
      'start',
      '-D',
      dataDir,
      '-w',
      '-t',
      '60',
      '-l',
      join(root, 'log'),
      '-o',
      options,
    ]);
    running = true;
  };
  await start();
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${String(port)}/postgres`,
    stop: async (mode) => {
      await pg('pg_ctl', ['stop', '-D', dataDir, '-m', mode, '-w', '-t', '60']);
      running = false;
    },
    start,
    destroy: async () => {
      if (running)
        await pg('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']).catch(() => '');
      running = false;
      rmSync(root, { recursive: true, force: true });
    },
  };
};
