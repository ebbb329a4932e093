import type pg from 'pg';
import type { Position, RecordedEvent } from '../services/event-store/types.js';
import { inTransaction } from '../services/database/transaction.js';
import { InvalidArgument } from '../services/runtime/errors.js';
import { buildChangePayload, CHANGE_CHANNEL, type ChangeNotice } from './change-payload.js';
import type { Projection, ResourceChanges } from './types.js';

const NAME = /^[a-z][a-z0-9_-]{0,62}$/;
const SCHEMA = /^[a-z_][a-z0-9_]{0,62}$/;

export const assertProjectionName = (name: string): void => {
  if (!NAME.test(name)) {
    throw new InvalidArgument(
      `projection name "${name}" must match ${NAME.source} (lowercase letters, digits, _ and -)`,
    );
  }
};

/** Schema names are interpolated into SQL, so only plain identifiers are accepted. */
export const assertSchemaName = (schema: string): void => {
  if (!SCHEMA.test(schema)) {
    throw new InvalidArgument(
      `schema "${schema}" must match ${SCHEMA.source} (lowercase letters, digits and _)`,
    );
  }
};

/** The checkpoint is not where this applier left it: another applier moved it (or a reset). */
export class CheckpointMoved extends Error {
  constructor(
    readonly projection: string,
    readonly expected: Position | null,
    readonly actual: Position | null | undefined,
  ) {
    super(
      `checkpoint of projection "${projection}" is ${actual === undefined ? 'missing' : (actual ?? 'empty')}, expected ${expected ?? 'empty'}`,
    );
    this.name = 'CheckpointMoved';
  }
}

export interface ApplyBatchOptions {
  /** Target schema (the live read model or a shadow). */
  readonly schema: string;
  /** The checkpoint this applier believes is stored; the batch follows it. */
  readonly expected: Position | null;
  /** Send the batch's change notice with `NOTIFY` inside the transaction (server Postgres). */
  readonly notify: boolean;
}

export interface AppliedBatch {
  readonly notice: ChangeNotice;
  readonly changes: ResourceChanges;
}

/**
 * Applies one batch in one transaction: lock the checkpoint row and check it still holds
 * `expected`, run the handler with the target schema first on the search path, advance the
 * checkpoint, queue the NOTIFY, commit. The notification is part of the transaction, so
 * listeners hear of exactly the batches that committed. The commit is asynchronous (see below).
 */
export const applyBatch = async (
  pool: pg.Pool,
  projection: Projection,
  events: readonly RecordedEvent[],
  options: ApplyBatchOptions,
): Promise<AppliedBatch> => {
  const last = events.at(-1);
  if (!last) throw new RangeError('a batch needs at least one event');
  return inTransaction(pool, async (client) => {
    // The batch commits without waiting for its WAL flush (synchronous_commit off, this
    // transaction only): a read model is derived from the log, and rows and checkpoint are
    // lost together or not at all, so a server crash only re-applies the last batches. The
    // appends stay synchronous; a projection's commit then no longer queues a second flush
    // behind every write.
    const locked = await client.query<{ position: string | null }>(
      `SELECT position, set_config('search_path', $3, true) AS search_path,
              set_config('synchronous_commit', 'off', true) AS synchronous_commit
         FROM projections.checkpoints WHERE target_schema = $1 AND name = $2 FOR UPDATE`,
      [options.schema, projection.name, `${options.schema}, public`],
    );
    const row = locked.rows[0];
    if (row?.position !== options.expected) {
      throw new CheckpointMoved(
        projection.name,
        options.expected,
        row ? (row.position as Position | null) : undefined,
      );
    }
    const changes = await projection.apply(events, client);
    const notice: ChangeNotice = {
      projection: projection.name,
      position: last.position,
      uris: changes.uris,
      collections: changes.collections,
      ...(changes.products ? { products: changes.products } : {}),
    };
    const advance = `UPDATE projections.checkpoints
        SET position = $3, events_applied = events_applied + $4, error = NULL, updated_at = now()
      WHERE target_schema = $1 AND name = $2`;
    const values = [options.schema, projection.name, last.position, events.length];
    if (options.notify) {
      await client.query(
        `WITH advanced AS (${advance} RETURNING 1) SELECT pg_notify($5, $6) FROM advanced`,
        [...values, CHANGE_CHANNEL, buildChangePayload(notice)],
      );
    } else {
      await client.query(advance, values);
    }
    return { notice, changes };
  });
};
