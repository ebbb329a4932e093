import type pg from 'pg';
import type { Position } from '../services/event-store/types.js';
import { CogitaveError } from '../services/runtime/errors.js';
import { assertSchemaName } from './apply-batch.js';
import { buildChangePayload, CHANGE_CHANNEL } from './change-payload.js';
import { deleteCheckpoint, ensureCheckpoint, readCheckpoint } from './checkpoints.js';
import { digestTablesIn, type TableDigest } from './digest.js';
import type { Lease, LeaseManager } from './leases.js';
import { READ_MODEL_SCHEMA, type Projection, type ProjectionTable } from './types.js';

/**
 * What `cogitave replay` does around `replayProjection`: names and drops shadow schemas, takes
 * a consistent snapshot of a projection (checkpoint and digests together), compares digests,
 * and promotes a shadow to live.
 */

/**
 * Events per batch transaction of a full replay. Measured on a million Request events (2
 * cores): 500 per batch, read then applied in turn, rebuilt ~10.5k events/s; reading ahead,
 * 10,000 ~21k, 20,000 ~23k, 40,000 ~24k (with ~130 MB more memory than 20,000). With
 * set-based writes and deferred shadow indexes, 20,000, 50,000 and 100,000 all rebuilt
 * ~24k events/s (bound by this process's CPU), at a peak RSS of ~0.5, ~1.2 and ~1.7 GB.
 */
export const REPLAY_BATCH_SIZE = 20_000;

/** `cogitave_replay_<name>`: where a replay of `projection` is rebuilt. */
export const shadowSchemaFor = (projection: Projection): string => {
  const schema = `cogitave_replay_${projection.name.replace(/-/g, '_')}`.slice(0, 63);
  assertSchemaName(schema);
  return schema;
};

const assertShadow = (schema: string): void => {
  assertSchemaName(schema);
  if (schema === READ_MODEL_SCHEMA)
    throw new RangeError('the shadow schema must not be the live one');
};

/** Drops a shadow schema with everything in it, and the projection's checkpoint there. */
export const dropShadow = async (
  pool: pg.Pool,
  projection: Projection,
  shadow: string,
): Promise<void> => {
  assertShadow(shadow);
  await pool.query(`DROP SCHEMA IF EXISTS ${shadow} CASCADE`);
  await deleteCheckpoint(pool, shadow, projection.name);
};

export interface ProjectionSnapshot {
  /** The checkpoint: the last applied event; null before the first. */
  readonly position: Position | null;
  /** Events applied since the target was created or reset (the events up to `position`). */
  readonly eventsApplied: bigint;
  readonly digests: TableDigest[];
}

/**
 * The checkpoint and the table digests of a projection in one REPEATABLE READ snapshot. A
 * runner commits each batch's rows with its checkpoint, so the snapshot sees a batch entirely
 * or not at all: the digests are exactly those of the rows as of `position`, even while a
 * runner in another process keeps applying.
 */
export const snapshotProjection = async (
  pool: pg.Pool,
  projection: Projection,
  schema: string = READ_MODEL_SCHEMA,
): Promise<ProjectionSnapshot> => {
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const checkpoint = await readCheckpoint(client, schema, projection.name);
    const digests = await digestTablesIn(client, projection, schema);
    await client.query('COMMIT');
    return {
      position: checkpoint?.position ?? null,
      eventsApplied: checkpoint?.eventsApplied ?? 0n,
      digests,
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};

export interface TableComparison {
  readonly table: string;
  readonly live: TableDigest;
  readonly shadow: TableDigest;
  readonly equal: boolean;
}

/** Pairs digests by table (in the order of `live`); equal means same rows and same sha256. */
export const compareDigests = (
  live: readonly TableDigest[],
  shadow: readonly TableDigest[],
): TableComparison[] =>
  live.map((digest) => {
    const other = shadow.find((candidate) => candidate.table === digest.table) ?? {
      table: digest.table,
      rows: 0,
      sha256: '',
    };
    return {
      table: digest.table,
      live: digest,
      shadow: other,
      equal: digest.rows === other.rows && digest.sha256 === other.sha256,
    };
  });

/**
 * The runner's advisory lock on `<schema>.<projection>` if no other process holds it now (the
 * runner's own key, so a runner cannot apply meanwhile); undefined when it is held elsewhere.
 */
export const tryProjectionLock = async (
  leases: LeaseManager,
  schema: string,
  projection: Projection,
): Promise<Lease | undefined> => {
  const controller = new AbortController();
  try {
    // acquire() reports the first refusal through onWaiting; aborting then makes it give up
    // instead of polling until the holder lets go.
    return await leases.acquire(`${schema}.${projection.name}`, controller.signal, () => {
      controller.abort(new Error('held by another process'));
    });
  } catch (error) {
    if (controller.signal.aborted) return undefined;
    throw error;
  }
};

const quoteIdent = (name: string): string => `"${name.replace(/"/g, '""')}"`;

interface ColumnRow {
  name: string;
  type: string;
}

const columnsOf = async (
  client: pg.PoolClient,
  schema: string,
  table: string,
): Promise<ColumnRow[]> =>
  (
    await client.query<ColumnRow>(
      `SELECT a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type
         FROM pg_attribute a
        WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum`,
      [`${schema}.${table}`],
    )
  ).rows;

interface IndexRow {
  name: string;
  /** Primary key, uniqueness and the definition after USING: the same for a live index and its copy. */
  signature: string;
}

const indexesOf = async (
  client: pg.PoolClient,
  schema: string,
  table: string,
): Promise<IndexRow[]> =>
  (
    await client.query<IndexRow>(
      `SELECT c.relname AS name,
              concat_ws(' ', i.indisprimary, i.indisunique,
                        regexp_replace(pg_get_indexdef(i.indexrelid), '^.* USING ', '')) AS signature
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        WHERE i.indrelid = to_regclass($1)
        ORDER BY c.relname`,
      [`${schema}.${table}`],
    )
  ).rows;

const sameColumns = (a: readonly ColumnRow[], b: readonly ColumnRow[]): boolean =>
  a.length === b.length &&
  a.every((column, index) => {
    const other = b[index];
    return other?.name === column.name && other.type === column.type;
  });

/**
 * A table the projection owns outright: the live one is dropped and the shadow's moved into
 * its place, its indexes (and so their constraints) renamed to the live names so the schema
 * reads as the migrations left it. Grants on the live table are not carried over (the
 * migrations set none).
 */
const swapTable = async (client: pg.PoolClient, shadow: string, name: string): Promise<void> => {
  const liveIndexes = await indexesOf(client, READ_MODEL_SCHEMA, name);
  const shadowIndexes = await indexesOf(client, shadow, name);
  const table = quoteIdent(name);
  await client.query(`DROP TABLE ${READ_MODEL_SCHEMA}.${table}`);
  await client.query(`ALTER TABLE ${shadow}.${table} SET SCHEMA ${READ_MODEL_SCHEMA}`);
  const unmatched = [...liveIndexes];
  for (const index of shadowIndexes) {
    const at = unmatched.findIndex((live) => live.signature === index.signature);
    const live = unmatched[at];
    if (!live) continue;
    unmatched.splice(at, 1);
    if (live.name === index.name) continue;
    await client.query(
      `ALTER INDEX ${READ_MODEL_SCHEMA}.${quoteIdent(index.name)} RENAME TO ${quoteIdent(live.name)}`,
    );
  }
};

/** A table shared with other projections: only this projection's rows are replaced. */
const replaceOwnedRows = async (
  client: pg.PoolClient,
  shadow: string,
  table: ProjectionTable & { readonly ownedWhere: NonNullable<ProjectionTable['ownedWhere']> },
  columns: readonly ColumnRow[],
): Promise<void> => {
  const list = columns.map((column) => quoteIdent(column.name)).join(', ');
  const where = `${quoteIdent(table.ownedWhere.column)} = $1`;
  await client.query(`DELETE FROM ${READ_MODEL_SCHEMA}.${quoteIdent(table.name)} WHERE ${where}`, [
    table.ownedWhere.equals,
  ]);
  await client.query(
    `INSERT INTO ${READ_MODEL_SCHEMA}.${quoteIdent(table.name)} (${list})
     SELECT ${list} FROM ${shadow}.${quoteIdent(table.name)} WHERE ${where}`,
    [table.ownedWhere.equals],
  );
};

export interface Promotion {
  readonly position: Position | null;
  readonly eventsApplied: bigint;
}

/**
 * Promotes a rebuilt shadow to live in one transaction: each table the projection owns is
 * replaced by the shadow's (the old one dropped), its rows of shared tables are replaced, and
 * the live checkpoint takes the shadow's position and count (its error cleared), so the
 * runner goes on from where the rebuild stopped; with `notify` (server Postgres, as the
 * runner's batches) the change feed is told to re-read everything once it commits. The caller must hold the projection's live
 * lock (`tryProjectionLock`) so no runner applies meanwhile; the checkpoint row is locked here
 * too, which an overlapping applier's compare-and-set would notice.
 */
export const promoteShadow = async (
  pool: pg.Pool,
  projection: Projection,
  shadow: string,
  options: { readonly notify: boolean },
): Promise<Promotion> => {
  assertShadow(shadow);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const source = await client.query<{ position: string | null; events_applied: string }>(
      `SELECT position, events_applied FROM projections.checkpoints
        WHERE target_schema = $1 AND name = $2 FOR UPDATE`,
      [shadow, projection.name],
    );
    const rebuilt = source.rows[0];
    if (!rebuilt) {
      throw new CogitaveError(
        'FAILED_PRECONDITION',
        `there is no rebuild of projection "${projection.name}" in schema ${shadow} to promote`,
      );
    }
    await ensureCheckpoint(client, READ_MODEL_SCHEMA, projection.name);
    await client.query(
      'SELECT 1 FROM projections.checkpoints WHERE target_schema = $1 AND name = $2 FOR UPDATE',
      [READ_MODEL_SCHEMA, projection.name],
    );
    for (const table of projection.tables) {
      const live = await columnsOf(client, READ_MODEL_SCHEMA, table.name);
      if (!sameColumns(live, await columnsOf(client, shadow, table.name))) {
        throw new CogitaveError(
          'FAILED_PRECONDITION',
          `${READ_MODEL_SCHEMA}.${table.name} no longer has the columns its rebuild in ${shadow} was made with (a migration ran meanwhile?); replay again`,
        );
      }
      if (table.ownedWhere) {
        await replaceOwnedRows(client, shadow, { ...table, ownedWhere: table.ownedWhere }, live);
      } else {
        await swapTable(client, shadow, table.name);
      }
    }
    await client.query(
      `UPDATE projections.checkpoints
          SET position = $3, events_applied = $4, error = NULL, updated_at = now()
        WHERE target_schema = $1 AND name = $2`,
      [READ_MODEL_SCHEMA, projection.name, rebuilt.position, rebuilt.events_applied],
    );
    await deleteCheckpoint(client, shadow, projection.name);
    if (options.notify && rebuilt.position !== null) {
      // Every resource may have changed: a truncated notice with no collection tells
      // listeners (gateways serving subscriptions) to re-list and re-read everything.
      const payload = buildChangePayload({
        projection: projection.name,
        position: rebuilt.position as Position,
        uris: [],
        collections: [],
        truncated: true,
      });
      await client.query('SELECT pg_notify($1, $2)', [CHANGE_CHANNEL, payload]);
    }
    await client.query('COMMIT');
    return {
      position: rebuilt.position as Position | null,
      eventsApplied: BigInt(rebuilt.events_applied),
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
};
