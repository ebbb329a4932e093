import type { MigrationSet } from '../database/migrate.js';
import type { Queryable } from '../database/queryable.js';
import type { Position } from '../event-store/types.js';

/** The reactor's tables (checkpoint, failures), migrated by the composition root. */
export const githubReactorMigrations: MigrationSet = {
  owner: 'github-reactor',
  directory: new URL('./migrations/', import.meta.url),
};

export interface ReactorFailure {
  readonly eventId: string;
  readonly position: string;
  readonly streamId: string;
  readonly eventType: string;
  readonly error: string;
  readonly failedAt: string;
}

export const loadCheckpoint = async (
  db: Queryable,
  reactor: string,
): Promise<Position | undefined> => {
  const result = await db.query<{ position: string }>(
    'SELECT position FROM github_reactor.checkpoints WHERE reactor = $1',
    [reactor],
  );
  return result.rows[0]?.position as Position | undefined;
};

/** Never moves backwards, so a stale writer cannot rewind a newer checkpoint. */
export const saveCheckpoint = async (
  db: Queryable,
  reactor: string,
  position: Position,
): Promise<void> => {
  await db.query(
    `INSERT INTO github_reactor.checkpoints (reactor, position) VALUES ($1, $2)
     ON CONFLICT (reactor) DO UPDATE SET position = EXCLUDED.position, updated_at = now()
     WHERE github_reactor.checkpoints.position < EXCLUDED.position`,
    [reactor, position],
  );
};

export const recordFailure = async (
  db: Queryable,
  reactor: string,
  failure: Omit<ReactorFailure, 'failedAt'>,
): Promise<void> => {
  await db.query(
    `INSERT INTO github_reactor.failures (reactor, event_id, position, stream_id, event_type, error)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (reactor, event_id) DO UPDATE SET error = EXCLUDED.error, failed_at = now()`,
    [
      reactor,
      failure.eventId,
      failure.position,
      failure.streamId,
      failure.eventType,
      failure.error,
    ],
  );
};

export const loadFailures = async (
  db: Queryable,
  reactor: string,
  limit = 50,
): Promise<ReactorFailure[]> => {
  const result = await db.query<{
    event_id: string;
    position: string;
    stream_id: string;
    event_type: string;
    error: string;
    failed_at: Date;
  }>(
    `SELECT event_id, position, stream_id, event_type, error, failed_at
       FROM github_reactor.failures WHERE reactor = $1 ORDER BY position DESC LIMIT $2`,
    [reactor, limit],
  );
  return result.rows.map((row) => ({
    eventId: row.event_id,
    position: row.position,
    streamId: row.stream_id,
    eventType: row.event_type,
    error: row.error,
    failedAt: row.failed_at.toISOString(),
  }));
};
