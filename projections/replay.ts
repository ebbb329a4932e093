import type pg from 'pg';
import type { EventStore, Position, RecordedEvent } from '../services/event-store/types.js';
import { applyBatch, assertSchemaName } from './apply-batch.js';
import { ensureCheckpoint, readCheckpoint } from './checkpoints.js';
import { buildShadowIndexes, createShadowTables, resetProjection } from './digest.js';
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
  readonly batchSize?: number;
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

/** The most events the event store serves per read (`readAll`'s `maxCount` limit). */
const PAGE_SIZE = 10_000;

/**
 * Rebuilds a projection into a shadow schema by reading the log page by page (no
 * subscription, no lock) through the same batch transaction as the runner, so a shadow and
 * the live tables can be compared by digest. It stops at the visible end of the log or at
 * `until`.
 *
 * The next batch is read while one applies (the reads and the handler's writes run on two
 * connections at once), so reading costs no time beside the writes. Batches of many thousand
 * events let a handler that folds per batch write each touched row once per batch. A fresh
 * shadow table is loaded with its primary key only and gets its other indexes once the rows
 * are in. See test/bench/replay.bench.ts for the figures.
 */
export const replayProjection = async (options: ReplayOptions): Promise<ReplayResult> => {
  const { pool, eventStore, projection, schema } = options;
  assertSchemaName(schema);
  if (schema === READ_MODEL_SCHEMA) {
    throw new RangeError(
      'replay writes to a shadow schema; the live read model is rebuilt by the runner',
    );
  }
  const batchSize = options.batchSize ?? 500;
  const until = options.until;
  await createShadowTables(pool, projection, schema, { deferIndexes: true });
  if (options.reset ?? true) await resetProjection(pool, projection, schema);
  await ensureCheckpoint(pool, schema, projection.name);
  let position = (await readCheckpoint(pool, schema, projection.name))?.position ?? null;
  let events = 0;

  let readFrom = position;
  let exhausted = false;
  /** Up to `batchSize` events after `readFrom`, in pages of at most PAGE_SIZE. */
  const readBatch = async (): Promise<RecordedEvent[]> => {
    const batch: RecordedEvent[] = [];
    while (!exhausted && batch.length < batchSize) {
      options.signal?.throwIfAborted();
      const maxCount = Math.min(batchSize - batch.length, PAGE_SIZE);
      const page = await eventStore.readAll({
        ...(readFrom === null ? {} : { fromPosition: readFrom }),
        maxCount,
        filter: projection.filter,
      });
      readFrom = page.at(-1)?.position ?? readFrom;
      const kept = until === undefined ? page : page.filter((event) => event.position <= until);
      if (kept.length < page.length || page.length < maxCount) exhausted = true;
      for (const event of kept) batch.push(event);
    }
    return batch;
  };
  const readAhead = (): Promise<RecordedEvent[]> | undefined => {
    if (exhausted) return undefined;
    const read = readBatch();
    // Handled here too, so a read left behind by a failed batch is no unhandled rejection.
    read.catch(() => undefined);
    return read;
  };

  let next = readAhead();
  while (next) {
    const batch = await next;
    next = readAhead();
    if (batch.length === 0) continue;
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
