import type { MigrationSet } from '../services/database/migrate.js';
import type { Queryable } from '../services/database/queryable.js';
import type { Position } from '../services/event-store/types.js';
import type { FailedEvent } from './types.js';

/** The runner's own tables (checkpoints) and the shared resource index. */
export const projectionMigrations: MigrationSet = {
  owner: 'projections',
  directory: new URL('./migrations/', import.meta.url),
};

export interface Checkpoint {
  /** Position of the last applied event; null before the first. */
  readonly position: Position | null;
  /** Events applied to this target since it was created or reset. */
  readonly eventsApplied: bigint;
  readonly error: FailedEvent | null;
  readonly updatedAt: Date;
}

interface CheckpointRow {
  position: string | null;
  events_applied: string;
  error: FailedEvent | null;
  updated_at: Date;
}

/** Creates the checkpoint row if missing, so the first batch has a row to lock and compare. */
export const ensureCheckpoint = async (
  db: Queryable,
  schema: string,
  name: string,
): Promise<void> => {
  await db.query(
    `INSERT INTO projections.checkpoints (target_schema, name) VALUES ($1, $2)
     ON CONFLICT (target_schema, name) DO NOTHING`,
    [schema, name],
  );
};

export const readCheckpoint = async (
  db: Queryable,
  schema: string,
  name: string,
): Promise<Checkpoint | undefined> => {
  const result = await db.query<CheckpointRow>(
    `SELECT position, events_applied, error, updated_at FROM projections.checkpoints
      WHERE target_schema = $1 AND name = $2`,
    [schema, name],
  );
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    position: row.position as Position | null,
    eventsApplied: BigInt(row.events_applied),
    error: row.error,
    updatedAt: row.updated_at,
  };
};

/**
 * Records why the projection stopped, for every replica's status. Only while the checkpoint
 * is still where the failing batch started: a late write must not mark a newer state.
 */
export const recordFailure = async (
  db: Queryable,
  schema: string,
  name: string,
  at: Position | null,
  error: FailedEvent,
): Promise<void> => {
  await db.query(
    `UPDATE projections.checkpoints SET error = $4::jsonb, updated_at = now()
      WHERE target_schema = $1 AND name = $2 AND position IS NOT DISTINCT FROM $3`,
    [schema, name, at, JSON.stringify(error)],
  );
};

export const deleteCheckpoint = async (
  db: Queryable,
  schema: string,
  name: string,
): Promise<void> => {
  await db.query('DELETE FROM projections.checkpoints WHERE target_schema = $1 AND name = $2', [
    schema,
    name,
  ]);
};
