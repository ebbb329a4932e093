import type pg from 'pg';
import { copyFrom } from '../services/database/copy.js';
import { inTransaction } from '../services/database/transaction.js';
import type {
  EventFilter,
  EventStore,
  Position,
  StreamPartition,
} from '../services/event-store/types.js';
import { buildShadowIndexes } from './digest.js';
import { loadInWorkers } from './bulk-workers.js';
import { readBatches } from './read-batches.js';
import type { BulkRows, Projection } from './types.js';

/** Events per batch of a bulk load: small, so the events die young (cheap to collect). */
export const BULK_BATCH_SIZE = 4000;

/** Rebuild partitions of streams in worker threads, each on its own connections. */
export interface ParallelRebuild {
  /** The server the workers connect to (the database `pool` is on). */
  readonly connectionString: string;
  /** Worker threads; 1 or less loads in this thread. */
  readonly workers: number;
}

export interface BulkReplayOptions {
  readonly pool: pg.Pool;
  readonly eventStore: EventStore;
  readonly projection: Projection;
  /** A shadow schema whose tables are empty, ideally without indexes. */
  readonly schema: string;
  readonly until?: Position | undefined;
  readonly parallel?: ParallelRebuild | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onProgress?:
    ((progress: { readonly events: number; readonly position: Position }) => void) | undefined;
}

export interface Loaded {
  /** The last event folded; null when there was none. */
  readonly position: Position | null;
  readonly events: number;
}

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/** COPY statements for the projection's own tables only (names go into SQL). */
const copyStatement = (projection: Projection, schema: string, rows: BulkRows): string => {
  if (!projection.tables.some((table) => table.name === rows.table)) {
    throw new Error(
      `projection "${projection.name}" rebuilt rows of a table it does not own: ${rows.table}`,
    );
  }
  for (const name of [rows.table, ...rows.columns]) {
    if (!IDENTIFIER.test(name)) throw new Error(`"${name}" is not a plain SQL identifier`);
  }
  return `COPY ${schema}.${rows.table} (${rows.columns.join(', ')}) FROM STDIN`;
};

export interface LoadOptions extends Pick<
  BulkReplayOptions,
  'pool' | 'eventStore' | 'projection' | 'schema' | 'until' | 'signal'
> {
  readonly partition?: StreamPartition | undefined;
  /** After each batch is folded: the events of the batch and its last position. */
  readonly onBatch?: ((events: number, position: Position) => void) | undefined;
}

/**
 * Folds the projection's events (of one partition of the streams, if given) with its
 * `bulkRebuild` and COPYs the rows, in one transaction on one connection: each batch's rows
 * are copied while this thread folds the next batch and another connection reads the one
 * after; then the folded state's rows, a slice at a time.
 */
export const loadBulk = async (options: LoadOptions): Promise<Loaded> => {
  const { pool, projection, schema } = options;
  const rebuild = projection.bulkRebuild?.();
  if (!rebuild) throw new Error(`projection "${projection.name}" has no bulk rebuild`);
  const filter: EventFilter = {
    ...projection.filter,
    ...(options.partition ? { partition: options.partition } : {}),
  };
  return inTransaction(pool, async (client) => {
    let writing: Promise<void> = Promise.resolve();
    const write = (batches: Iterable<BulkRows>): Promise<void> => {
      const done = (async () => {
        for (const rows of batches) {
          if (rows.rows === 0) continue;
          await copyFrom(client, copyStatement(projection, schema, rows), rows.chunks);
        }
      })();
      // Awaited before the next write or at the end; handled here so a failure found while
      // this thread folds the next batch is no unhandled rejection meanwhile.
      done.catch(() => undefined);
      return done;
    };
    let position: Position | null = null;
    let events = 0;
    for await (const batch of readBatches({
      eventStore: options.eventStore,
      filter,
      from: null,
      until: options.until,
      batchSize: BULK_BATCH_SIZE,
      signal: options.signal,
    })) {
      options.signal?.throwIfAborted();
      const rows = rebuild.fold(batch);
      await writing;
      writing = write(rows);
      const last: Position | null = batch.at(-1)?.position ?? position;
      if (last !== null) options.onBatch?.(batch.length, last);
      position = last;
      events += batch.length;
    }
    // Each slice of the state becomes rows while the one before is copied.
    for (const rows of rebuild.finish()) {
      options.signal?.throwIfAborted();
      await writing;
      writing = write([rows]);
    }
    await writing;
    return { position, events };
  });
};

/**
 * `replayProjection` with the projection's `BulkRebuild` into tables without indexes: the
 * load (in this thread, or in worker threads by partition of the streams when the projection
 * `rebuildsByStream`), then every index with one sorted pass each, then the checkpoint. The
 * checkpoint is set last: a rebuild interrupted before it leaves a shadow whose checkpoint is
 * empty, which the next replay starts over.
 */
export const bulkReplay = async (options: BulkReplayOptions): Promise<Loaded> => {
  const { pool, projection, schema } = options;
  const workers = Math.floor(options.parallel?.workers ?? 1);
  let events = 0;
  let latest: Position | null = null;
  const onBatch = (batchEvents: number, position: Position): void => {
    events += batchEvents;
    if (latest === null || position > latest) latest = position;
    options.onProgress?.({ events, position: latest });
  };
  const loaded =
    options.parallel && projection.rebuildsByStream && projection.moduleUrl && workers > 1
      ? await loadInWorkers({ ...options, parallel: options.parallel, workers, onBatch })
      : await loadBulk({ ...options, onBatch });
  await buildShadowIndexes(pool, projection, schema);
  await pool.query(
    `UPDATE projections.checkpoints
        SET position = $3, events_applied = $4, error = NULL, updated_at = now()
      WHERE target_schema = $1 AND name = $2`,
    [schema, projection.name, loaded.position, loaded.events],
  );
  return loaded;
};
