import { createHash } from 'node:crypto';
import type pg from 'pg';
import { assertSchemaName } from './apply-batch.js';
import { deleteCheckpoint } from './checkpoints.js';
import type { Queryable, SessionClient } from '../services/database/queryable.js';
import { copyLiveIndexes } from './shadow-indexes.js';
import { READ_MODEL_SCHEMA, type Projection, type ProjectionTable } from './types.js';

/**
 * Table digests and shadow schemas: what replay and verify compare. A digest is the sha256 of
 * every row of the projection's part of a table, as text, joined by newlines, in key order,
 * with the session's time zone pinned so timestamps print the same everywhere.
 *
 * The rows are walked with a cursor and fed to a running hash, so memory stays bounded
 * whatever the table's size (one string of the whole table hits V8's string limit at a few
 * million rows); the bytes hashed, and so the digest, do not depend on the chunk size.
 */
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

const checkIdentifier = (name: string): string => {
  if (!IDENTIFIER.test(name)) throw new RangeError(`"${name}" is not a plain SQL identifier`);
  return name;
};

const ownedClause = (table: ProjectionTable): { sql: string; values: string[] } =>
  table.ownedWhere
    ? {
        sql: `WHERE t.${checkIdentifier(table.ownedWhere.column)} = $1`,
        values: [table.ownedWhere.equals],
      }
    : { sql: '', values: [] };

/** Rows fetched per round trip while digesting (the memory bound: one chunk of row texts). */
export const DIGEST_CHUNK_ROWS = 5000;
const DIGEST_CURSOR = 'cogitave_digest_rows';

export interface DigestOptions {
  /** Rows per fetch (default DIGEST_CHUNK_ROWS); the digest is the same for any value. */
  readonly chunkRows?: number;
}

export interface TableDigest {
  readonly table: string;
  readonly rows: number;
  readonly sha256: string;
}

export const digestTables = async (
  pool: pg.Pool,
  projection: Projection,
  schema: string = READ_MODEL_SCHEMA,
  options: DigestOptions = {},
): Promise<TableDigest[]> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN READ ONLY');
    const digests = await digestTablesIn(client, projection, schema, options);
    await client.query('COMMIT');
    return digests;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};

/**
 * `digestTables` on a client already inside a transaction (the caller's snapshot: e.g. a
 * REPEATABLE READ one that also reads the checkpoint, so rows and position agree).
 */
export const digestTablesIn = async (
  client: SessionClient,
  projection: Projection,
  schema: string = READ_MODEL_SCHEMA,
  options: DigestOptions = {},
): Promise<TableDigest[]> => {
  assertSchemaName(schema);
  const chunkRows = options.chunkRows ?? DIGEST_CHUNK_ROWS;
  if (!Number.isSafeInteger(chunkRows) || chunkRows < 1) {
    throw new RangeError(`chunkRows must be a whole number of at least 1 (got ${chunkRows})`);
  }
  await client.query(
    "SELECT set_config('TimeZone', 'UTC', true), set_config('DateStyle', 'ISO, YMD', true)",
  );
  const digests: TableDigest[] = [];
  for (const table of projection.tables) {
    const owned = ownedClause(table);
    const order = table.orderBy.map((column) => `t.${checkIdentifier(column)}`).join(', ');
    await client.query(
      `DECLARE ${DIGEST_CURSOR} NO SCROLL CURSOR FOR
         SELECT t::text FROM ${schema}.${checkIdentifier(table.name)} t ${owned.sql} ORDER BY ${order}`,
      owned.values,
    );
    const hash = createHash('sha256');
    let rows = 0;
    for (;;) {
      const chunk = await client.query<[string]>({
        text: `FETCH ${chunkRows} FROM ${DIGEST_CURSOR}`,
        rowMode: 'array',
      });
      for (const [text] of chunk.rows) {
        if (rows > 0) hash.update('\n');
        hash.update(text, 'utf8');
        rows += 1;
      }
      if (chunk.rows.length < chunkRows) break;
    }
    await client.query(`CLOSE ${DIGEST_CURSOR}`);
    digests.push({ table: table.name, rows, sha256: hash.digest('hex') });
  }
  return digests;
};

export interface ShadowTableOptions {
  /**
   * Create missing tables with only the indexes writes need (see `ProjectionTable`);
   * `buildShadowIndexes` adds the others once the rows are loaded (what a replay does).
   * Existing tables are left as they are.
   */
  readonly deferIndexes?: boolean;
  /**
   * With `deferIndexes`: create missing tables with no index at all, not even a primary key
   * (a bulk rebuild writes each row once; `buildShadowIndexes` adds them all afterwards).
   */
  readonly bare?: boolean;
}

/**
 * Creates `shadow`'s copies of the projection's tables (columns, defaults, constraints and
 * indexes of the live ones), so handlers that name tables unqualified write there instead.
 */
export const createShadowTables = async (
  pool: pg.Pool,
  projection: Projection,
  shadow: string,
  options: ShadowTableOptions = {},
): Promise<void> => {
  assertSchemaName(shadow);
  if (shadow === READ_MODEL_SCHEMA)
    throw new RangeError('the shadow schema must not be the live one');
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${shadow}`);
  for (const table of projection.tables) {
    const name = checkIdentifier(table.name);
    if (!options.deferIndexes) {
      await pool.query(
        `CREATE TABLE IF NOT EXISTS ${shadow}.${name} (LIKE ${READ_MODEL_SCHEMA}.${name} INCLUDING ALL)`,
      );
      continue;
    }
    const existing = await pool.query<{ missing: boolean }>(
      'SELECT to_regclass($1) IS NULL AS missing',
      [`${shadow}.${name}`],
    );
    // An existing table keeps the indexes it has; a new one starts with those writes need.
    if (!existing.rows[0]?.missing) continue;
    await pool.query(
      `CREATE TABLE ${shadow}.${name} (LIKE ${READ_MODEL_SCHEMA}.${name} INCLUDING ALL EXCLUDING INDEXES)`,
    );
    if (options.bare) continue;
    await copyLiveIndexes(pool, shadow, name, {
      load: true,
      deferUnique: table.deferUniqueIndexes ?? false,
    });
  }
};

/** Adds to `shadow`'s tables every live index they lack (after a load with deferred indexes). */
export const buildShadowIndexes = async (
  pool: Queryable,
  projection: Projection,
  shadow: string,
): Promise<void> => {
  assertSchemaName(shadow);
  for (const table of projection.tables) {
    await copyLiveIndexes(pool, shadow, checkIdentifier(table.name), { load: false });
  }
};

/**
 * Empties the projection's rows in `schema` and forgets its checkpoint, in one transaction,
 * so its next run rebuilds from the start of the log. The caller must make sure no runner
 * applies the projection to that schema meanwhile.
 */
export const resetProjection = async (
  pool: pg.Pool,
  projection: Projection,
  schema: string,
): Promise<void> => {
  assertSchemaName(schema);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    for (const table of projection.tables) {
      const owned = ownedClause(table);
      await client.query(
        `DELETE FROM ${schema}.${checkIdentifier(table.name)} t ${owned.sql}`,
        owned.values,
      );
    }
    await deleteCheckpoint(client, schema, projection.name);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};
