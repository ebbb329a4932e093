import type { MigrationSet } from '../database/migrate.js';
import type { Queryable } from '../database/queryable.js';
import type { Position } from '../event-store/types.js';

/** The reactor's tables (checkpoint, failures, undecided merges), migrated by the composition root. */
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

/** A proposal's merge seen on GitHub (by its push) whose decision the log does not hold yet. */
export interface UndecidedMergeRecord {
  readonly requestId: string;
  readonly proposalId: string;
  readonly pullNumber: number;
  /** The commit of the push that showed the merge. */
  readonly commit: string;
  /** When the reactor first saw it. */
  readonly seenAt: string;
}

/** Kept once per proposal: seeing the merge again keeps the first time it was seen. */
export const recordUndecidedMerge = async (
  db: Queryable,
  reactor: string,
  merge: Omit<UndecidedMergeRecord, 'seenAt'>,
): Promise<UndecidedMergeRecord> => {
  const { rows } = await db.query<{ seen_at: Date }>(
    `INSERT INTO github_reactor.undecided_merges (reactor, proposal_id, request_id, pull_number, commit_sha)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (reactor, proposal_id) DO UPDATE SET proposal_id = EXCLUDED.proposal_id
     RETURNING seen_at`,
    [reactor, merge.proposalId, merge.requestId, merge.pullNumber, merge.commit],
  );
  return { ...merge, seenAt: (rows[0]?.seen_at ?? new Date()).toISOString() };
};

/** The decision is in the log: of one proposal, or of every proposal of a closed request. */
export const forgetUndecidedMerges = async (
  db: Queryable,
  reactor: string,
  of: { readonly proposalId: string } | { readonly requestId: string },
): Promise<void> => {
  await db.query(
    'proposalId' in of
      ? 'DELETE FROM github_reactor.undecided_merges WHERE reactor = $1 AND proposal_id = $2'
      : 'DELETE FROM github_reactor.undecided_merges WHERE reactor = $1 AND request_id = $2',
    [reactor, 'proposalId' in of ? of.proposalId : of.requestId],
  );
};

export const loadUndecidedMerges = async (
  db: Queryable,
  reactor: string,
): Promise<UndecidedMergeRecord[]> => {
  const { rows } = await db.query<{
    proposal_id: string;
    request_id: string;
    pull_number: number;
    commit_sha: string;
    seen_at: Date;
  }>(
    `SELECT proposal_id, request_id, pull_number, commit_sha, seen_at
       FROM github_reactor.undecided_merges WHERE reactor = $1 ORDER BY seen_at, proposal_id`,
    [reactor],
  );
  return rows.map((row) => ({
    requestId: row.request_id,
    proposalId: row.proposal_id,
    pullNumber: row.pull_number,
    commit: row.commit_sha,
    seenAt: row.seen_at.toISOString(),
  }));
};
