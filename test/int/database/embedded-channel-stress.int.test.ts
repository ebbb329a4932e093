import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { PGlite } from '@electric-sql/pglite';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../../services/database/database.js';
import { socketPathIn, startLocalChannel } from '../../../services/database/embedded/channel.js';
import { createSharedSession } from '../../../services/database/embedded/shared-session.js';
import { readOwnerRecord } from '../../../services/database/embedded/owner-record.js';
import { simpleQuery, startupMessage } from '../../../services/database/embedded/wire.js';
import { createLogger } from '../../../services/runtime/logger.js';

const logger = createLogger('silent');
const root = mkdtempSync(join(tmpdir(), 'cogitave-channel-'));
let owner: Database;
let socketDirectory: string;
let port: number;

beforeAll(async () => {
  owner = await openDatabase({ dataDir: join(root, 'data'), poolSize: 1, logger });
  await owner.pool.query(
    'CREATE TABLE counter (n int NOT NULL); INSERT INTO counter VALUES (0); CREATE TABLE notes (id serial PRIMARY KEY, body text)',
  );
  const record = readOwnerRecord(join(root, 'data'))!;
  socketDirectory = record.socketDirectory;
  port = record.port;
});
afterAll(async () => {
  await owner.close();
  rmSync(root, { recursive: true, force: true });
});

const within = <T>(ms: number, what: string, work: Promise<T>): Promise<T> =>
  Promise.race([
    work,
    new Promise<never>((_, reject) =>
      setTimeout(() => {
        reject(new Error(`no answer within ${String(ms)} ms: ${what}`));
      }, ms).unref(),
    ),
  ]);

const client = async (): Promise<pg.Client> => {
  const c = new pg.Client({ host: socketDirectory, port });
  c.on('error', () => undefined);
  await c.connect();
  return c;
};

const raw = (): Promise<net.Socket> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(socketPathIn(socketDirectory), () => {
      resolve(socket);
    });
    socket.on('error', reject);
  });

describe('the owner channel under concurrent clients', () => {
  it('answers every client, whatever the others do (transactions, long reads, disconnects mid-query)', async () => {
    const bump = async (c: pg.Client | pg.Pool): Promise<void> => {
      const tx = 'connect' in c && c instanceof pg.Pool ? await c.connect() : c;
      try {
        await tx.query('BEGIN');
        const { rows } = await tx.query<{ n: number }>('SELECT n FROM counter');
        await new Promise((resolve) => setImmediate(resolve));
        await tx.query('UPDATE counter SET n = $1', [rows[0]!.n + 1]);
        await tx.query('COMMIT');
      } finally {
        if (tx !== c) (tx as pg.PoolClient).release();
      }
    };
    let bumps = 0;
    const writers = Array.from({ length: 3 }, async () => {
      const c = await client();
      for (let i = 0; i < 15; i += 1) {
        await bump(c);
        bumps += 1;
      }
      await c.end();
    });
    const ownerWrites = (async () => {
      for (let i = 0; i < 15; i += 1) {
        await bump(owner.pool);
        bumps += 1;
      }
    })();
    const longReads = Array.from({ length: 2 }, async () => {
      const c = await client();
      for (let i = 0; i < 3; i += 1) {
        const { rows } = await c.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM (SELECT g, repeat($1, 50) FROM generate_series(1, 20000) g) s',
          ['x'],
        );
        expect(rows[0]!.n).toBe(20000);
        const big = await c.query(
          "SELECT g, repeat('y', 100) AS pad FROM generate_series(1, 20000) g",
        );
        expect(big.rows).toHaveLength(20000);
      }
      await c.end();
    });
    const quitters = Array.from({ length: 6 }, async (_, i) => {
      for (let round = 0; round < 4; round += 1) {
        const c = await client();
        await c.query('BEGIN');
        await c.query("INSERT INTO notes (body) VALUES ('never committed')");
        if (i % 3 === 0) {
          // Dies with a statement in flight.
          void c.query('SELECT pg_sleep(0.05)').catch(() => undefined);
        } else if (i % 3 === 1) {
          void c.query('SELECT g FROM generate_series(1, 50000) g').catch(() => undefined);
          await new Promise((resolve) => setTimeout(resolve, 2));
        }
        (c as unknown as { connection: { stream: net.Socket } }).connection.stream.destroy();
      }
    });
    const partial = Array.from({ length: 3 }, async () => {
      for (let round = 0; round < 4; round += 1) {
        const socket = await raw();
        socket.on('error', () => undefined);
        socket.write(startupMessage({ user: 'postgres', database: 'postgres' }));
        socket.write(simpleQuery('BEGIN'));
        const query = simpleQuery("INSERT INTO notes (body) VALUES ('half')");
        await new Promise((resolve) => setTimeout(resolve, 5));
        socket.write(query.subarray(0, 7));
        await new Promise((resolve) => setTimeout(resolve, 5));
        socket.destroy();
      }
    });
    await within(
      60_000,
      'the concurrent load',
      Promise.all([...writers, ownerWrites, ...longReads, ...quitters, ...partial]),
    );
    const { rows } = await owner.pool.query<{ n: number }>('SELECT n FROM counter');
    expect(rows[0]!.n).toBe(bumps);
    // Every holder that left is gone: a fresh client and the owner get an answer at once.
    const last = await client();
    expect((await within(5000, 'a fresh client', last.query('SELECT 1 AS one'))).rows).toEqual([
      { one: 1 },
    ]);
    await last.end();
    expect(
      (await within(5000, 'the owner', owner.pool.query('SELECT count(*)::int AS n FROM notes')))
        .rows,
    ).toEqual([{ n: 0 }]);
  });
});

describe('a holder the owner gives up on', () => {
  it('given a client stuck inside a transaction that neither reads nor closes, when others wait, then the owner ends it, rolls it back at once and answers the others', async () => {
    const pglite = await PGlite.create();
    await pglite.exec('CREATE TABLE notes (id int)');
    const session = createSharedSession(pglite, { idleInTransactionMs: 300 });
    const directory = join(root, 'stuck');
    mkdirSync(directory, { mode: 0o700 });
    const channel = await startLocalChannel({ session, directory, logger });
    try {
      // A process that began a transaction, wrote, and then stopped (SIGSTOP, a debugger, a
      // blocked event loop): its socket stays open and it never reads the owner's FATAL.
      const stuck = await new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(socketPathIn(directory), () => {
          resolve(socket);
        });
        socket.on('error', reject);
      });
      stuck.on('error', () => undefined);
      stuck.write(startupMessage({ user: 'postgres', database: 'postgres' }));
      stuck.write(simpleQuery('BEGIN; INSERT INTO notes VALUES (1)'));
      stuck.pause();
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(session.state().holder).toMatch(/channel connection/);

      const other = new pg.Client({ host: directory, port: channel.port });
      other.on('error', () => undefined);
      await other.connect();
      const answer = await within(
        5000,
        'a client behind a stuck transaction',
        other.query<{ n: number }>('SELECT count(*)::int AS n FROM notes'),
      );
      // Rolled back: the stuck client's insert is not there.
      expect(answer.rows).toEqual([{ n: 0 }]);
      await other.end();
      stuck.destroy();
    } finally {
      await channel.close(100);
      await pglite.close();
    }
  });
});
