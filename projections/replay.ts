import type pg from 'pg';
import type { EventStore, Position } from '../services/event-store/types.js';
import { applyBatch, assertSchemaName } from './apply-batch.js';
import { bulkReplay, type ParallelRebuild } from './bulk-replay.js';
import { ensureCheckpoint, readCheckpoint } from './checkpoints.js';
import { buildShadowIndexes, createShadowTables, resetProjection } from './digest.js';
import { readBatches } from './read-batches.js';
import { READ_MODEL_SCHEMA, type Projection } from './types.js';

export interface ReplayOptions {
  readonly pool: pg.Pool;
  readonly eventStore: EventStore;
  readonly projection: Projection;
  /** A shadow schema (never the live `read_model`, which the runner owns). */
  readonly schema: string;
  /** Start from an empty shadow (default true); false resumes from its checkpoint. */
  readonly reset?: boolean;
  /** Apply events up to and including this position only ("as of"). */
  readonly until?: Position;
  /** Events per transaction of the batch path (a bulk rebuild sizes its own batches). */
  readonly batchSize?: number;
  /**
   * Rebuild from position zero with the projection's `bulkRebuild` when it has one: COPY into
   * tables without indexes (server Postgres only; PGlite's pg shim has no COPY). Default false.
   */
  readonly bulk?: boolean;
  /** With `bulk`: fold partitions of the streams in worker threads (see `ParallelRebuild`). */
  readonly parallel?: ParallelRebuild;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: {
    readonly events: number;
    readonly position: Position;
  }) => void;
}

export interface ReplayResult {
  readonly position: Position | null;
  readonly events: number;
}

/**
 * Rebuilds a projection into a shadow schema by reading the log page by page (no
 * subscription, no lock), so a shadow and the live tables can be compared by digest. It stops
 * at the visible end of the log or at `until`.
 *
 * Two ways, same rows (the tests compare their digests):
 * - batches through the runner's own transaction (`applyBatch`: the handler's SQL, then the
 *   checkpoint), the next batch read while one applies. A fresh shadow table is loaded with
 *   its primary key only and gets its other indexes once the rows are in. Used to resume a
 *   shadow, on PGlite, and for projections without a bulk rebuild.
 * - `bulk` from position zero (`bulkReplay`): the projection's `BulkRebuild` folds in memory
 *   and every row is COPYed once into tables without indexes, in worker threads by stream
 *   partition with `parallel`.
 * See test/bench/replay.bench.ts for the figures.
 */
export const replayProjection = async (options: ReplayOptions): Promise<ReplayResult> => {
  const { pool, projection, schema } = options;
  assertSchemaName(schema);
  if (schema === READ_MODEL_SCHEMA) {
    throw new RangeError(
      'replay writes to a shadow schema; the live read model is rebuilt by the runner',
    );
  }
  const batchSize = options.batchSize ?? 500;
  // Nothing applied yet means nothing to keep: an interrupted bulk load (which commits its
  // rows and its checkpoint together) or a fresh shadow starts over.
  const fromZero =
    (options.reset ?? true) ||
    ((await readCheckpoint(pool, schema, projection.name))?.position ?? null) === null;
  const bulk = (options.bulk ?? false) && fromZero && projection.bulkRebuild !== undefined;
  await createShadowTables(pool, projection, schema, { deferIndexes: true, bare: bulk });
  if (fromZero) await resetProjection(pool, projection, schema);
  await ensureCheckpoint(pool, schema, projection.name);
  if (bulk) return bulkReplay(options);
  let position = (await readCheckpoint(pool, schema, projection.name))?.position ?? null;
  let events = 0;

  for await (const batch of readBatches({
    ...options,
    filter: projection.filter,
    from: position,
    batchSize,
  })) {
    options.signal?.throwIfAborted();
    const applied = await applyBatch(pool, projection, batch, {
      schema,
      expected: position,
      notify: false,
    });
    position = applied.notice.position;
    events += batch.length;
    options.onProgress?.({ events, position });
  }
  await buildShadowIndexes(pool, projection, schema);
  return { position, events };
};
