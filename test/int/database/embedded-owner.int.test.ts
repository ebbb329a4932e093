import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { socketPathIn } from '../../../services/database/embedded/channel.js';
import { readOwnerRecord } from '../../../services/database/embedded/owner-record.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { repoRoot } from '../../support/cli.js';
import { forEachLine } from './support/lines.js';

/**
 * One owner per embedded data folder: the first process to open it runs PGlite and serves it
 * over its local channel; every other process goes through that owner and sees the same
 * database. Real PGlite, real Unix sockets, real child processes killed with SIGKILL.
 */
const logger = createLogger('silent');
const root = mkdtempSync(join(tmpdir(), 'cogitave-owner-'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

// initdb takes seconds: it runs once, and each test starts from a copy of its folder.
const template = join(root, 'template');
beforeAll(async () => {
  const database = await openDatabase({ dataDir: template, poolSize: 1, logger });
  await database.close();
});

let serial = 0;
const freshFolder = (): string => {
  serial += 1;
  const dataDir = join(root, `data-${String(serial)}`);
  cpSync(template, dataDir, { recursive: true });
  return dataDir;
};

const opened: Database[] = [];
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  for (const database of opened.splice(0).reverse()) await database.close().catch(() => undefined);
});

const open = async (
  dataDir: string,
  options: { mustOwn?: boolean; command?: string } = {},
): Promise<Database> => {
  const database = await openDatabase({ dataDir, poolSize: 1, logger, ...options });
  opened.push(database);
  return database;
};

interface Holder {
  readonly child: ChildProcess;
  readonly role: string;
  sql(statement: string): Promise<{ rows?: Record<string, unknown>[]; error?: string }>;
}

/** A child process that opens `dataDir` (support/hold-folder.ts) and runs SQL on request. */
const holdInChild = (dataDir: string, mode: 'serve' | 'client' = 'client'): Promise<Holder> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/int/database/support/hold-folder.ts', dataDir, mode],
      { cwd: repoRoot, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    children.push(child);
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const replies: ((line: string) => void)[] = [];
    let started = false;
    forEachLine(child.stdout, (line) => {
      if (started) {
        replies.shift()?.(line);
        return;
      }
      started = true;
      const { role } = JSON.parse(line) as { role: string };
      resolve({
        child,
        role,
        sql: (statement) =>
          new Promise((answer) => {
            replies.push((reply) => {
              answer(JSON.parse(reply) as { rows?: Record<string, unknown>[]; error?: string });
            });
            child.stdin.write(`sql ${statement}\n`);
          }),
      });
    });
    child.on('exit', (code, signal) => {
      if (!started) reject(new Error(`holder exited (${String(code ?? signal)}): ${stderr}`));
    });
  });

const killed = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    child.once('exit', () => {
      resolve();
    });
    child.kill('SIGKILL');
  });

describe('an embedded data folder has one owner', () => {
  it('given an owner, when another process opens the folder, then it is a client of the owner and both see one database', async () => {
    const dataDir = freshFolder();
    const owner = await open(dataDir);
    expect(owner.embedded?.role).toBe('owner');
    await owner.pool.query('CREATE TABLE notes (id int PRIMARY KEY, body text)');

    const child = await holdInChild(dataDir);
    expect(child.role).toBe('client');
    expect(await child.sql("INSERT INTO notes VALUES (1, 'from the client') RETURNING id")).toEqual(
      {
        rows: [{ id: 1 }],
      },
    );
    // The client's write is the owner's: no second copy of the database anywhere.
    const seen = await owner.pool.query('SELECT body FROM notes');
    expect(seen.rows).toEqual([{ body: 'from the client' }]);
    await owner.pool.query("INSERT INTO notes VALUES (2, 'from the owner')");
    expect((await child.sql('SELECT count(*)::int AS n FROM notes')).rows).toEqual([{ n: 2 }]);
  });

  it('given an owner, then its channel is a Unix socket only its user may use, in a private folder, and no TCP port', async () => {
    const dataDir = freshFolder();
    const owner = await open(dataDir);
    const record = readOwnerRecord(dataDir);
    expect(record).toMatchObject({ pid: process.pid, socketDirectory: join(dataDir, 'owner') });
    const socket = statSync(socketPathIn(record!.socketDirectory));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    expect(statSync(record!.socketDirectory).mode & 0o777).toBe(0o700);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(owner.connectionString).toBeUndefined();
  });

  it('given an owner and a client, when both run read-modify-write transactions at once, then none is lost (the session passes between transactions, never inside one)', async () => {
    const dataDir = freshFolder();
    const owner = await open(dataDir);
    await owner.pool.query('CREATE TABLE counter (n int NOT NULL); INSERT INTO counter VALUES (0)');
    const record = readOwnerRecord(dataDir)!;
    // Several client connections besides the owner's own pool.
    const clients = Array.from(
      { length: 3 },
      () => new pg.Pool({ host: record.socketDirectory, port: record.port, max: 1 }),
    );
    const bump = async (pool: pg.Pool): Promise<void> => {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const { rows } = await client.query<{ n: number }>('SELECT n FROM counter');
        // Yield between read and write: another holder would interleave here if it could.
        await new Promise((resolve) => setImmediate(resolve));
        await client.query('UPDATE counter SET n = $1', [rows[0]!.n + 1]);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
    };
    const rounds = 25;
    await Promise.all(
      [owner.pool, ...clients].map(async (pool) => {
        for (let round = 0; round < rounds; round += 1) await bump(pool);
      }),
    );
    for (const pool of clients) await pool.end();
    const { rows } = await owner.pool.query<{ n: number }>('SELECT n FROM counter');
    expect(rows[0]!.n).toBe(rounds * 4);
  });

  it('given a client killed inside a transaction, then its writes roll back and the owner carries on', async () => {
    const dataDir = freshFolder();
    const owner = await open(dataDir);
    await owner.pool.query('CREATE TABLE notes (id int PRIMARY KEY)');
    const child = await holdInChild(dataDir);
    expect((await child.sql('BEGIN')).error).toBeUndefined();
    expect((await child.sql('INSERT INTO notes VALUES (1)')).error).toBeUndefined();
    // The owner waits for the client's transaction, then the client dies inside it.
    const ownerWrite = owner.pool.query('INSERT INTO notes VALUES (2)');
    await killed(child.child);
    await ownerWrite;
    const { rows } = await owner.pool.query('SELECT id FROM notes ORDER BY id');
    expect(rows).toEqual([{ id: 2 }]);
  });

  it('given a client that sent a bad statement in an extended-protocol exchange, then the session is clean for the next holder', async () => {
    const dataDir = freshFolder();
    const owner = await open(dataDir);
    const record = readOwnerRecord(dataDir)!;
    const client = new pg.Client({ host: record.socketDirectory, port: record.port });
    await client.connect();
    await expect(client.query('SELECT $1::int / 0 AS boom', [1])).rejects.toThrow(/division/);
    await expect(client.query('SELEC 1')).rejects.toThrow(/syntax/);
    expect((await client.query('SELECT $1::int AS one', [1])).rows).toEqual([{ one: 1 }]);
    await client.end();
    expect((await owner.pool.query('SELECT 2 AS two')).rows).toEqual([{ two: 2 }]);
  });

  it('given the owner was killed with SIGKILL, when the folder is opened again, then the new process owns it at once and the committed rows are there', async () => {
    const dataDir = freshFolder();
    const first = await holdInChild(dataDir);
    expect(first.role).toBe('owner');
    await first.sql('CREATE TABLE notes (id int PRIMARY KEY)');
    expect((await first.sql('INSERT INTO notes VALUES (1), (2), (3)')).error).toBeUndefined();
    await killed(first.child);

    const started = Date.now();
    const next = await open(dataDir);
    expect(next.embedded?.role).toBe('owner');
    // No stale lock to time out on: the kernel released it with the process.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(readOwnerRecord(dataDir)?.pid).toBe(process.pid);
    const { rows } = await next.pool.query('SELECT count(*)::int AS n FROM notes');
    expect(rows).toEqual([{ n: 3 }]);
  });

  it('given a serve owns the folder, when another serve opens it, then it is refused at once with IN_USE naming the owner', async () => {
    const dataDir = freshFolder();
    const serving = await holdInChild(dataDir, 'serve');
    expect(serving.role).toBe('owner');
    const refused = await open(dataDir, { mustOwn: true, command: 'cogitave serve' }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(CogitaveError);
    expect((refused as CogitaveError).code).toBe('IN_USE');
    expect((refused as CogitaveError).message).toContain(`pid ${String(serving.child.pid)}`);
    expect((refused as CogitaveError).message).toContain('already served by cogitave serve');
  });

  it('given a command holds the folder, when serve opens it, then serve waits and owns it once the command ends', async () => {
    const dataDir = freshFolder();
    const command = await holdInChild(dataDir);
    expect(command.role).toBe('owner');
    const serving = open(dataDir, { mustOwn: true, command: 'cogitave serve' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    command.child.stdin?.end();
    const database = await serving;
    expect(database.embedded?.role).toBe('owner');
  });

  it('given a command holds the folder and does not let go, when serve has waited its bound, then it is refused with IN_USE', async () => {
    const dataDir = freshFolder();
    const command = await holdInChild(dataDir);
    const refused = await openDatabase({
      dataDir,
      poolSize: 1,
      logger,
      mustOwn: true,
      command: 'cogitave serve',
      waitMs: 1500,
    }).catch((error: unknown) => error);
    expect((refused as CogitaveError).code).toBe('IN_USE');
    expect((refused as CogitaveError).message).toContain(`pid ${String(command.child.pid)}`);
  });
});
