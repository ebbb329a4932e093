import type { MigrationSet } from '../services/database/migrate.js';
import type { SessionClient } from '../services/database/queryable.js';
import type { EventFilter, Position, RecordedEvent } from '../services/event-store/types.js';

/** The schema live read models are written to; replays write to shadow schemas instead. */
export const READ_MODEL_SCHEMA = 'read_model';

/**
 * The client of a batch's transaction. Its `search_path` starts with the target schema, so a
 * handler names its tables unqualified (`requests`, `resources`) and the same code rebuilds a
 * shadow schema.
 */
export type ProjectionTransaction = SessionClient;

/** A table a projection writes, for digests (replay/verify) and rebuilds. */
export interface ProjectionTable {
  /** Unqualified table name; it lives in the target schema. */
  readonly name: string;
  /** Columns that order rows deterministically (a unique key). */
  readonly orderBy: readonly string[];
  /**
   * Selects this projection's rows of a table shared with other projections (e.g. resources),
   * as a column and the value it must equal.
   */
  readonly ownedWhere?: { readonly column: string; readonly equals: string };
  /**
   * A replay may build this table's unique indexes (other than the primary key) after loading
   * the rows rather than maintain them per row. Only for tables whose writes do not depend on
   * them (no ON CONFLICT on them): a duplicate then fails the replay when the index is built,
   * at its end, rather than at the event. Non-unique indexes are always built after the load.
   */
  readonly deferUniqueIndexes?: boolean;
}

/** What a batch changed, for the change feed. */
export interface ResourceChanges {
  /** Resource URIs whose content changed (or that were created or deleted). */
  readonly uris: readonly string[];
  /** Collection URIs (e.g. `cogitave://request/`) whose membership changed. */
  readonly collections: readonly string[];
  /**
   * The product of each changed URI (null: none), so a notification reaches only who may read
   * the resource, deleted ones included.
   */
  readonly products?: Readonly<Record<string, string | null>>;
}

export const NO_CHANGES: ResourceChanges = { uris: [], collections: [] };

export interface Projection {
  /** Stable identifier: the checkpoint key and the advisory-lock key. `[a-z][a-z0-9_-]*`. */
  readonly name: string;
  /** Which events it reads (stream prefixes and/or event types). */
  readonly filter: EventFilter;
  /** Its own numbered migrations (creates its tables in `read_model`). */
  readonly migrations: MigrationSet;
  /** Every table it writes, for digests and rebuilds. */
  readonly tables: readonly ProjectionTable[];
  /**
   * Applies a batch of events (in log order) through the transaction client. Must be a pure
   * function of the events and its own tables (no reads of other projections, no clock), so a
   * rebuild from position zero yields the same rows. Throwing stops the projection.
   */
  apply(events: readonly RecordedEvent[], tx: ProjectionTransaction): Promise<ResourceChanges>;
  /**
   * Optional: a rebuild from position zero that folds in memory and only appends rows (see
   * `BulkRebuild`). A replay uses it on server Postgres; `apply` stays the reference, and a
   * replay's digests show any difference between the two.
   */
  readonly bulkRebuild?: () => BulkRebuild;
  /**
   * Its rows for a stream depend on that stream's events only (state per stream, rows per
   * event), so a bulk rebuild may fold disjoint partitions of the streams in parallel.
   */
  readonly rebuildsByStream?: boolean;
  /**
   * The URL of the module that exports this projection (its `import.meta.url`), for a
   * parallel bulk rebuild: each worker thread imports it there, so the machinery never
   * imports a capability.
   */
  readonly moduleUrl?: string;
}

/** Rows for one of the projection's tables, in COPY's text format (`CopyText`). */
export interface BulkRows {
  readonly table: string;
  readonly columns: readonly string[];
  readonly rows: number;
  /** The rows' text, in chunks (a load must not need one string of all of it). */
  readonly chunks: readonly Buffer[];
}

/**
 * A projection's rebuild from position zero into empty tables: events are folded in memory
 * and every row is written exactly once, by COPY, into tables that get their indexes (primary
 * key included) only after the load. Rows complete as soon as their event is folded (one per
 * event, like a history) come back from `fold`; rows of state that later events may still
 * change come back once, from `finish`. Memory grows with that state (e.g. one entry per
 * request), not with the number of events.
 */
export interface BulkRebuild {
  /** Folds a batch (in log order); same checks and failures as `apply`. */
  fold(events: readonly RecordedEvent[]): readonly BulkRows[];
  /** The rows of the folded state, after the last batch, a slice at a time. */
  finish(): Iterable<BulkRows>;
}

/** The event a projection stopped at, as the log and the ops endpoint show it. */
export interface FailedEvent {
  readonly position: Position;
  readonly streamId: string;
  /** Stream revision as decimal text (JSON has no bigint). */
  readonly revision: string;
  readonly type: string;
  readonly eventId: string;
  readonly message: string;
  /** When it failed (wall clock of the runner). */
  readonly failedAt: string;
}

/**
 * - `standby`: another process holds the projection's lock; this one waits to take over.
 * - `running`: applying events, behind the head of the log.
 * - `caught_up`: has applied everything visible and follows new events.
 * - `stopped`: a handler failed on an event (see `error`); nothing after it is applied until
 *   `restart`.
 * - `closed`: the runner was stopped gracefully.
 */
export type ProjectionState =
  'starting' | 'standby' | 'running' | 'caught_up' | 'stopped' | 'closed';

export const PROJECTION_STATES: readonly ProjectionState[] = [
  'starting',
  'standby',
  'running',
  'caught_up',
  'stopped',
  'closed',
];

export interface ProjectionStatus {
  readonly name: string;
  readonly state: ProjectionState;
  /** Whether this process holds the projection's lock (and so applies it). */
  readonly leader: boolean;
  /** The checkpoint: position of the last applied event; null before the first. */
  readonly position: Position | null;
  /** Newest event the projection reads, as of the last lag probe. */
  readonly headPosition: Position | null;
  /** Events (of its filter) after the checkpoint, capped at the probe's limit; null: unknown. */
  readonly lagEvents: number | null;
  /** Age of the oldest event not yet applied (by its metadata `at`); 0 when caught up. */
  readonly lagSeconds: number | null;
  /** Events applied by this process since it started. */
  readonly eventsApplied: number;
  readonly lastBatchAt: string | null;
  readonly error: FailedEvent | null;
  /** A transient problem being retried (database unreachable, lock connection lost). */
  readonly retrying: string | null;
  /** When it entered `state`. */
  readonly since: string;
}
