import type pg from 'pg';
import type { EventStore, Position } from '../services/event-store/types.js';
import { applyBatch, assertSchemaName } from './apply-batch.js';
import { ensureCheckpoint, readCheckpoint } from './checkpoints.js';
import { createShadowTables, resetProjection } from './digest.js';
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

/**
 * Rebuilds a projection into a shadow schema by reading the log page by page (no
 * subscription, no lock) through the same batch transaction as the runner, so a shadow and
 * the live tables can be compared by digest. It stops at the visible end of the log or at
 * `until`.
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
  await createShadowTables(pool, projection, schema);
  if (options.reset ?? true) await resetProjection(pool, projection, schema);
  await ensureCheckpoint(pool, schema, projection.name);
  let position = (await readCheckpoint(pool, schema, projection.name))?.position ?? null;
  let events = 0;
  for (;;) {
    options.signal?.throwIfAborted();
    const page = await eventStore.readAll({
      ...(position === null ? {} : { fromPosition: position }),
      maxCount: batchSize,
      filter: projection.filter,
    });
    const until = options.until;
    const batch = until === undefined ? page : page.filter((event) => event.position <= until);
    if (batch.length === 0) break;
    const applied = await applyBatch(pool, projection, batch, {
      schema,
      expected: position,
      notify: false,
    });
    position = applied.notice.position;
    events += batch.length;
    options.onProgress?.({ events, position });
    if (batch.length < page.length || page.length < batchSize) break;
  }
  return { position, events };
};
