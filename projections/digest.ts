import type pg from 'pg';
import { assertSchemaName } from './apply-batch.js';
import { deleteCheckpoint } from './checkpoints.js';
import { READ_MODEL_SCHEMA, type Projection, type ProjectionTable } from './types.js';

/**
 * Table digests and shadow schemas: what replay and verify compare. A digest is the sha256 of
 * every row of the projection's part of a table, as text, in key order, with the session's
 * time zone pinned so timestamps print the same everywhere.
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

export interface TableDigest {
  readonly table: string;
  readonly rows: number;
  readonly sha256: string;
}

export const digestTables = async (
  pool: pg.Pool,
  projection: Projection,
  schema: string = READ_MODEL_SCHEMA,
): Promise<TableDigest[]> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN READ ONLY');
    const digests = await digestTablesIn(client, projection, schema);
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
  client: Pick<pg.PoolClient, 'query'>,
  projection: Projection,
  schema: string = READ_MODEL_SCHEMA,
): Promise<TableDigest[]> => {
  assertSchemaName(schema);
  await client.query(
    "SELECT set_config('TimeZone', 'UTC', true), set_config('DateStyle', 'ISO, YMD', true)",
  );
  const digests: TableDigest[] = [];
  for (const table of projection.tables) {
    const owned = ownedClause(table);
    const order = table.orderBy.map((column) => `t.${checkIdentifier(column)}`).join(', ');
    const result = await client.query<{ rows: string; sha256: string }>(
      `SELECT count(*) AS rows,
              encode(sha256(convert_to(coalesce(string_agg(t::text, E'\\n' ORDER BY ${order}), ''), 'UTF8')), 'hex') AS sha256
         FROM ${schema}.${checkIdentifier(table.name)} t ${owned.sql}`,
      owned.values,
    );
    const row = result.rows[0];
    digests.push({ table: table.name, rows: Number(row?.rows ?? 0), sha256: row?.sha256 ?? '' });
  }
  return digests;
};

/**
 * Creates `shadow`'s copies of the projection's tables (columns, defaults, constraints and
 * indexes of the live ones), so handlers that name tables unqualified write there instead.
 */
export const createShadowTables = async (
  pool: pg.Pool,
  projection: Projection,
  shadow: string,
): Promise<void> => {
  assertSchemaName(shadow);
  if (shadow === READ_MODEL_SCHEMA)
    throw new RangeError('the shadow schema must not be the live one');
  await pool.query(`CREATE SCHEMA IF NOT EXISTS ${shadow}`);
  for (const table of projection.tables) {
    const name = checkIdentifier(table.name);
    await pool.query(
      `CREATE TABLE IF NOT EXISTS ${shadow}.${name} (LIKE ${READ_MODEL_SCHEMA}.${name} INCLUDING ALL)`,
    );
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
