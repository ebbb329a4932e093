import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestTables, type TableDigest } from '../../../projections/digest.js';
import { requestsMigrations } from '../../../services/requests/read-model/projection.js';
import { NO_CHANGES, type Projection } from '../../../projections/types.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

/**
 * Table digests walk the rows with a cursor and hash them chunk by chunk: given tables larger
 * than one chunk, the digest is the one the whole-table definition gave (sha256 of every row's
 * text joined by newlines in key order), for any chunk size.
 */
const SCHEMA = 'digest_check';
const ROWS = 120;

const projection: Projection = {
  name: 'digest-check',
  filter: { eventTypes: ['Nothing'] },
  migrations: requestsMigrations,
  tables: [
    { name: 'items', orderBy: ['grp', 'n'] },
    { name: 'shared', orderBy: ['uri'], ownedWhere: { column: 'owner', equals: 'digest-check' } },
  ],
  apply: () => Promise.resolve(NO_CHANGES),
};

/** The definition digests had when the whole table was aggregated in one SQL string. */
const wholeTableDigest = async (
  pool: pg.Pool,
  table: string,
  orderBy: string,
  where = '',
): Promise<TableDigest> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN READ ONLY');
    await client.query(
      "SELECT set_config('TimeZone', 'UTC', true), set_config('DateStyle', 'ISO, YMD', true)",
    );
    const result = await client.query<{ rows: string; sha256: string }>(
      `SELECT count(*) AS rows,
              encode(sha256(convert_to(coalesce(string_agg(t::text, E'\\n' ORDER BY ${orderBy}), ''), 'UTF8')), 'hex') AS sha256
         FROM ${SCHEMA}.${table} t ${where}`,
    );
    await client.query('COMMIT');
    return { table, rows: Number(result.rows[0]?.rows), sha256: result.rows[0]?.sha256 ?? '' };
  } finally {
    client.release();
  }
};

describe('table digests', () => {
  let throwaway: ThrowawayDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    throwaway = await createThrowawayDatabase('proj_digest');
    pool = new pg.Pool({ connectionString: throwaway.url, max: 2 });
    await pool.query(`CREATE SCHEMA ${SCHEMA}`);
    await pool.query(`CREATE TABLE ${SCHEMA}.items (
      grp text COLLATE "C" NOT NULL, n integer NOT NULL, label text, doc jsonb, at timestamptz,
      PRIMARY KEY (grp, n))`);
    await pool.query(`CREATE TABLE ${SCHEMA}.shared (
      uri text COLLATE "C" PRIMARY KEY, owner text NOT NULL, body text NOT NULL)`);
    // Inserted against key order, with text that needs escaping and non-ASCII characters.
    await pool.query(
      `INSERT INTO ${SCHEMA}.items
       SELECT CASE WHEN i % 3 = 0 THEN 'b' ELSE 'a' END, ${ROWS} - i,
              CASE WHEN i % 7 = 0 THEN NULL ELSE format(E'row %s, "quoted"\\ttab\\nline é ✓', i) END,
              jsonb_build_object('i', i, 'tags', jsonb_build_array('x', i * 0.5)),
              timestamptz '2026-01-05 09:00:00+00' + i * interval '1 minute'
         FROM generate_series(1, ${ROWS}) AS i`,
    );
    await pool.query(
      `INSERT INTO ${SCHEMA}.shared
       SELECT format('cogitave://x/%s', i), CASE WHEN i % 2 = 0 THEN 'digest-check' ELSE 'other' END,
              format('body %s', i)
         FROM generate_series(1, ${ROWS}) AS i`,
    );
  });

  afterAll(async () => {
    await pool.end();
    await throwaway.drop();
  });

  const expected = async (): Promise<TableDigest[]> => [
    await wholeTableDigest(pool, 'items', 't.grp, t.n'),
    await wholeTableDigest(pool, 'shared', 't.uri', "WHERE t.owner = 'digest-check'"),
  ];

  it('given tables larger than one chunk, when digested in chunks of any size, then the digests are those of the whole-table definition', async () => {
    const whole = await expected();
    expect(whole.map((digest) => digest.rows)).toEqual([ROWS, ROWS / 2]);
    for (const chunkRows of [1, 7, 59, ROWS, 10_000]) {
      expect(await digestTables(pool, projection, SCHEMA, { chunkRows })).toEqual(whole);
    }
    expect(await digestTables(pool, projection, SCHEMA)).toEqual(whole);
  });

  it('given one changed row, when digested, then only its table digest differs', async () => {
    const before = await digestTables(pool, projection, SCHEMA, { chunkRows: 16 });
    await pool.query(`UPDATE ${SCHEMA}.items SET label = label || '!' WHERE grp = 'b' AND n = 60`);
    try {
      const after = await digestTables(pool, projection, SCHEMA, { chunkRows: 16 });
      expect(after[0]?.rows).toBe(before[0]?.rows);
      expect(after[0]?.sha256).not.toBe(before[0]?.sha256);
      expect(after[1]).toEqual(before[1]);
      expect(after).toEqual(await expected());
    } finally {
      await pool.query(
        `UPDATE ${SCHEMA}.items SET label = left(label, -1) WHERE grp = 'b' AND n = 60`,
      );
    }
    expect(await digestTables(pool, projection, SCHEMA, { chunkRows: 16 })).toEqual(before);
  });

  it('given rows of another owner changing, when digested, then the owned digest is unchanged', async () => {
    const before = await digestTables(pool, projection, SCHEMA, { chunkRows: 9 });
    await pool.query(`UPDATE ${SCHEMA}.shared SET body = 'changed' WHERE owner = 'other'`);
    expect(await digestTables(pool, projection, SCHEMA, { chunkRows: 9 })).toEqual(before);
  });

  it('given empty tables, when digested, then no rows and the hash of nothing', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`DELETE FROM ${SCHEMA}.items`);
      await client.query(`DELETE FROM ${SCHEMA}.shared`);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    const empty = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    expect(await digestTables(pool, projection, SCHEMA, { chunkRows: 4 })).toEqual([
      { table: 'items', rows: 0, sha256: empty },
      { table: 'shared', rows: 0, sha256: empty },
    ]);
    expect(await expected()).toEqual([
      { table: 'items', rows: 0, sha256: empty },
      { table: 'shared', rows: 0, sha256: empty },
    ]);
  });

  it('given a chunk size that is not a whole number, when digested, then it is refused', async () => {
    await expect(digestTables(pool, projection, SCHEMA, { chunkRows: 0 })).rejects.toThrow(
      /chunkRows must be a whole number/,
    );
  });
});
