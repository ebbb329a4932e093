import type { Database } from '../../database/database.js';
import type { Queryable } from '../../database/queryable.js';
import { mapDatabaseError } from '../../database/transient.js';
import { DuplicateEventId } from '../errors.js';
import type { AppendResult, ExpectedRevision } from '../types.js';
import {
  chainRows,
  insertedResult,
  interpretAppendRow,
  isUniqueViolation,
  sliceInserted,
} from './append-rows.js';
import { createGroupCommitter, type GroupCommitter } from './group-commit.js';
import type { HeadCache, StreamHead } from './head-cache.js';
import {
  appendEvents,
  insertChained,
  selectEventOwner,
  type AppendArgs,
  type ChainedRow,
  type InsertedRow,
} from './queries.js';

/** What the append paths share: the database, the known stream heads and the group commit. */
export interface AppendPaths {
  readonly database: Database;
  /** Named (prepared) statements: server Postgres only. */
  readonly named: boolean;
  readonly heads: HeadCache;
  readonly committer: GroupCommitter<readonly ChainedRow[], readonly InsertedRow[]>;
}

/** The outcome of the general path, with the head it left when one was returned. */
export interface GeneralOutcome {
  readonly result: AppendResult;
  readonly wrote: boolean;
  readonly head: StreamHead | undefined;
}

export const createAppendPaths = (
  database: Database,
  heads: HeadCache,
  appendConcurrency: number | undefined,
): AppendPaths => {
  const named = database.kind === 'postgres';
  // Fast-path appends share transactions; see group-commit.ts.
  const committer = createGroupCommitter<readonly ChainedRow[], readonly InsertedRow[]>({
    // PGlite has one connection: a second group could only queue behind the first.
    maxInFlight: database.kind === 'pglite' ? 1 : (appendConcurrency ?? 2),
    maxItemsPerGroup: 200,
    maxWeightPerGroup: 2000,
    weight: (rows) => rows.length,
    write: async (appends) =>
      sliceInserted(appends, await insertChained(database.pool, appends.flat(), named)),
  });
  return { database, named, heads, committer };
};

/** The head an append would extend, when it is known without asking the database. */
// Only exact expectations take the fast path: with 'any' or 'stream_exists' writers contend
// for the head by design, and the general path's lock serves them better than retries.
// Not on PGlite: its pg shim loses track of the protocol after a failed INSERT ... RETURNING.
export const knownHead = (
  paths: AppendPaths,
  streamId: string,
  expected: ExpectedRevision,
): StreamHead | 'new' | undefined => {
  if (paths.database.kind !== 'postgres') return undefined;
  if (expected === 'no_stream') return 'new';
  const head = paths.heads.get(streamId);
  return head && expected === head.revision ? head : undefined;
};

/** Remembers the newest chained row of each stream among `rows` (they are committed). */
export const rememberRows = (paths: AppendPaths, rows: readonly ChainedRow[]): void => {
  for (const row of rows)
    paths.heads.remember(row.stream_id, { revision: BigInt(row.stream_revision), hash: row.hash });
};

/** The fast path; undefined when it does not apply or lost a race (then: the general path). */
export const appendFast = async (
  paths: AppendPaths,
  args: AppendArgs,
  expected: ExpectedRevision,
): Promise<AppendResult | undefined> => {
  const head = knownHead(paths, args.streamId, expected);
  if (head === undefined) return undefined;
  const rows = chainRows(args, head);
  try {
    const inserted = await paths.committer.submit(rows);
    rememberRows(paths, rows);
    return insertedResult(inserted);
  } catch (error) {
    // Someone else wrote first (or these ids exist): the general path tells which.
    if (isUniqueViolation(error)) {
      paths.heads.forget(args.streamId);
      return undefined;
    }
    throw mapDatabaseError(error);
  }
};

/** The general path, through append_events; retried when it races a fast-path writer. */
export const appendGeneral = async (
  paths: AppendPaths,
  db: Queryable,
  args: AppendArgs,
  expected: ExpectedRevision,
  committed: boolean,
): Promise<GeneralOutcome> => {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const row = await appendEvents(db, args, paths.named);
      const outcome = interpretAppendRow(row, args.streamId, expected);
      const head =
        row.last_hash !== null && row.next_revision !== null
          ? { revision: BigInt(row.next_revision), hash: row.last_hash }
          : undefined;
      if (committed && head) paths.heads.remember(args.streamId, head);
      return { ...outcome, head };
    } catch (error) {
      // A fast-path writer took the revision between our read and insert; each lost race is
      // someone else's progress, so this ends.
      if (committed && attempt < 50 && isUniqueViolation(error, 'events_stream_revision_key'))
        continue;
      return failure(paths, error, args);
    }
  }
};

const failure = async (paths: AppendPaths, error: unknown, args: AppendArgs): Promise<never> => {
  if (isUniqueViolation(error, 'events_event_id_key')) {
    // An id beyond the first was reused; the first is checked inside append_events.
    const ids = args.events.map((event) => event.id);
    const owner = await selectEventOwner(paths.database.pool, ids).catch(() => undefined);
    throw new DuplicateEventId(
      owner?.event_id ?? ids.join(', '),
      owner?.stream_id ?? args.streamId,
    );
  }
  throw mapDatabaseError(error);
};
