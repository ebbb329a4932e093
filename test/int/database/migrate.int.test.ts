import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../services/database/database.js';
import { migrate, type MigrationSet } from '../../../services/database/migrate.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

const logger = createLogger('silent');
const root = mkdtempSync(join(tmpdir(), 'cogitave-migrate-'));

/**
 * A fresh migration folder with its own owner and its own table name, so the tests of this
 * file share one database without seeing each other's migrations.
 */
const migrationSet = (
  files: Record<string, string>,
): MigrationSet & { table: string; dir: string; write(name: string, sql: string): void } => {
  const suffix = randomBytes(4).toString('hex');
  const dir = join(root, suffix);
  mkdirSync(dir);
  const table = `t_${suffix}`;
  const write = (name: string, sql: string): void => {
    writeFileSync(join(dir, name), sql.replaceAll('$TABLE', table));
  };
  for (const [name, sql] of Object.entries(files)) write(name, sql);
  return {
    owner: `test-${suffix}`,
    directory: new URL(`file://${dir}/`),
    table,
    dir,
    write,
  };
};

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

let throwaway: ThrowawayDatabase;
let pool: pg.Pool;

beforeAll(async () => {
  throwaway = await createThrowawayDatabase('migrate');
  pool = new pg.Pool({ connectionString: throwaway.url, max: 4 });
});

afterAll(async () => {
  await pool.end();
  await throwaway.drop();
  rmSync(root, { recursive: true, force: true });
});

const recorded = async (owner: string) =>
  (
    await pool.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM public.cogitave_migrations WHERE owner = $1 ORDER BY version',
      [owner],
    )
  ).rows;

const rowsOf = async (table: string): Promise<number[]> =>
  (await pool.query<{ n: number }>(`SELECT n FROM ${table} ORDER BY n`)).rows.map((row) => row.n);

const tableExists = async (table: string): Promise<boolean> =>
  (await pool.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [table]))
    .rows[0]?.found != null;

const rejection = async (promise: Promise<unknown>): Promise<CogitaveError> => {
  const error: unknown = await promise.then(
    () => {
      throw new Error('expected the migration to be refused');
    },
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(CogitaveError);
  return error as CogitaveError;
};

const CREATE = 'CREATE TABLE $TABLE (n integer NOT NULL);';

describe('migrate on server Postgres', () => {
  it('given three numbered files, when migrated, then they are applied in number order, each recorded with its checksum', async () => {
    const set = migrationSet({
      // Written out of order on purpose: 002 and 003 need the table 001 creates.
      '003_third.sql': 'INSERT INTO $TABLE VALUES (3);',
      '001_create_table.sql': CREATE,
      '002_second.sql': 'INSERT INTO $TABLE VALUES (2);',
    });

    const report = await migrate(pool, [set], logger);

    expect(report.applied).toEqual([
      { owner: set.owner, version: 1, name: 'create_table' },
      { owner: set.owner, version: 2, name: 'second' },
      { owner: set.owner, version: 3, name: 'third' },
    ]);
    expect(await rowsOf(set.table)).toEqual([2, 3]);
    expect(await recorded(set.owner)).toEqual([
      { version: 1, name: 'create_table', checksum: sha256(CREATE.replace('$TABLE', set.table)) },
      { version: 2, name: 'second', checksum: sha256(`INSERT INTO ${set.table} VALUES (2);`) },
      { version: 3, name: 'third', checksum: sha256(`INSERT INTO ${set.table} VALUES (3);`) },
    ]);
  });

  it('given a folder already migrated, when migrated again, then nothing is applied and nothing runs twice', async () => {
    const set = migrationSet({
      '001_create.sql': CREATE,
      '002_insert.sql': 'INSERT INTO $TABLE VALUES (1);',
    });
    await migrate(pool, [set], logger);

    const second = await migrate(pool, [set], logger);

    expect(second.applied).toEqual([]);
    expect(await rowsOf(set.table)).toEqual([1]);
    expect(await recorded(set.owner)).toHaveLength(2);
  });

  it('given a folder migrated once and a new file added, when migrated again, then only the new file is applied', async () => {
    const set = migrationSet({ '001_create.sql': CREATE });
    await migrate(pool, [set], logger);
    set.write('002_insert.sql', 'INSERT INTO $TABLE VALUES (7);');

    const report = await migrate(pool, [set], logger);

    expect(report.applied).toEqual([{ owner: set.owner, version: 2, name: 'insert' }]);
    expect(await rowsOf(set.table)).toEqual([7]);
  });

  it('given an applied migration edited afterwards, when migrated, then it is refused naming the file, and later files are not applied', async () => {
    const set = migrationSet({ '001_create.sql': CREATE });
    await migrate(pool, [set], logger);
    set.write('001_create.sql', 'CREATE TABLE $TABLE (n bigint NOT NULL);');
    set.write('002_insert.sql', 'INSERT INTO $TABLE VALUES (1);');

    const error = await rejection(migrate(pool, [set], logger));

    expect(error.message).toBe(
      `Migration ${set.owner}/1_create changed after it was applied; add a new migration instead`,
    );
    expect((await recorded(set.owner)).map((row) => row.version)).toEqual([1]);
    expect(await rowsOf(set.table)).toEqual([]);
  });

  it('given files 001 and 003 (a gap), when migrated, then it is refused naming the owner and nothing is applied', async () => {
    const set = migrationSet({
      '001_create.sql': CREATE,
      '003_insert.sql': 'INSERT INTO $TABLE VALUES (3);',
    });

    const error = await rejection(migrate(pool, [set], logger));

    expect(error.message).toContain(
      `Migrations of ${set.owner} must be numbered 001, 002, ... without gaps`,
    );
    expect(error.message).toContain('expected 002_*.sql where 003_insert.sql stands');
    expect(await recorded(set.owner)).toEqual([]);
    expect(await tableExists(set.table)).toBe(false);
  });

  it('given a file not named NNN_description.sql, when migrated, then it is refused naming the file', async () => {
    const set = migrationSet({ '001_create.sql': CREATE, '2_Insert-Rows.sql': 'SELECT 1;' });

    const error = await rejection(migrate(pool, [set], logger));

    expect(error.message).toContain('Migration "2_Insert-Rows.sql"');
    expect(error.message).toContain('is not named NNN_description.sql');
    expect(await recorded(set.owner)).toEqual([]);
  });

  it('given a migration that fails halfway through, when migrated, then its statements are rolled back, it is not recorded, and the earlier one stays', async () => {
    const set = migrationSet({
      '001_create.sql': CREATE,
      '002_broken.sql': `INSERT INTO $TABLE VALUES (1);
        CREATE TABLE $TABLE_extra (n integer);
        INSERT INTO no_such_table_${randomBytes(2).toString('hex')} VALUES (1);`,
    });

    const error = await rejection(migrate(pool, [set], logger));

    expect(error.message).toMatch(
      new RegExp(
        `^Migration ${set.owner}/2_broken failed: relation "no_such_table_\\w+" does not exist$`,
      ),
    );
    expect(error.cause).toBeInstanceOf(Error);
    expect((await recorded(set.owner)).map((row) => row.version)).toEqual([1]);
    expect(await rowsOf(set.table)).toEqual([]);
    expect(await tableExists(`${set.table}_extra`)).toBe(false);

    // Fixed, the same migration then applies — the failure left no half-done state behind.
    set.write(
      '002_broken.sql',
      'INSERT INTO $TABLE VALUES (1); CREATE TABLE $TABLE_extra (n integer);',
    );
    expect((await migrate(pool, [set], logger)).applied).toEqual([
      { owner: set.owner, version: 2, name: 'broken' },
    ]);
    expect(await tableExists(`${set.table}_extra`)).toBe(true);
  });

  it('given two owners with their own 001, when migrated together, then each owner is numbered and recorded on its own', async () => {
    const first = migrationSet({ '001_create.sql': CREATE });
    const second = migrationSet({
      '001_create.sql': CREATE,
      '002_insert.sql': 'INSERT INTO $TABLE VALUES (2);',
    });

    const report = await migrate(pool, [first, second], logger);

    expect(report.applied.map((m) => `${m.owner}/${m.version}`)).toEqual([
      `${first.owner}/1`,
      `${second.owner}/1`,
      `${second.owner}/2`,
    ]);
    expect(await rowsOf(second.table)).toEqual([2]);
  });

  it('given two pools migrating the same folder at the same time, when both finish, then each file was applied exactly once and both succeed', async () => {
    const set = migrationSet({
      // Not idempotent on purpose: a second CREATE TABLE would fail, a second INSERT would show.
      '001_create.sql': `${CREATE} SELECT pg_sleep(0.3);`,
      '002_insert.sql': 'INSERT INTO $TABLE VALUES (2); SELECT pg_sleep(0.2);',
      '003_insert.sql': 'INSERT INTO $TABLE VALUES (3);',
    });
    const poolA = new pg.Pool({ connectionString: throwaway.url, max: 2 });
    const poolB = new pg.Pool({ connectionString: throwaway.url, max: 2 });
    try {
      const [a, b] = await Promise.all([
        migrate(poolA, [set], logger),
        migrate(poolB, [set], logger),
      ]);

      const versions = [...a.applied, ...b.applied].map((m) => m.version).sort();
      expect(versions).toEqual([1, 2, 3]);
      // The advisory lock serialises whole runs: one migrator applied everything.
      expect([a.applied.length, b.applied.length].sort()).toEqual([0, 3]);
      expect(await rowsOf(set.table)).toEqual([2, 3]);
      expect(await recorded(set.owner)).toHaveLength(3);
    } finally {
      await Promise.all([poolA.end(), poolB.end()]);
    }
  });
});

describe('migrate on embedded PGlite', () => {
  it('given an in-memory PGlite database, when a folder is migrated twice, then the files apply once, in order', async () => {
    const database = await openDatabase({ dataDir: 'memory://', poolSize: 1, logger });
    try {
      const set = migrationSet({
        '001_create.sql': CREATE,
        '002_insert.sql': 'INSERT INTO $TABLE VALUES (1), (2);',
      });

      const first = await migrate(database.pool, [set], logger);
      const second = await migrate(database.pool, [set], logger);

      expect(database.kind).toBe('pglite');
      expect(first.applied.map((m) => m.version)).toEqual([1, 2]);
      expect(second.applied).toEqual([]);
      const rows = await database.pool.query<{ n: number }>(
        `SELECT n FROM ${set.table} ORDER BY n`,
      );
      expect(rows.rows.map((row) => row.n)).toEqual([1, 2]);
      const recordedRows = await database.pool.query<{ version: number }>(
        'SELECT version FROM public.cogitave_migrations WHERE owner = $1 ORDER BY version',
        [set.owner],
      );
      expect(recordedRows.rows.map((row) => row.version)).toEqual([1, 2]);
    } finally {
      await database.close();
    }
  });
});
