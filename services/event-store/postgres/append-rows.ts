import { CogitaveError } from '../../runtime/errors.js';
import { DuplicateEventId, WrongExpectedVersion } from '../errors.js';
import { chainHash, sha256Hex } from '../hash-chain.js';
import { encodePosition } from '../position.js';
import type { AppendOptions, AppendResult, EventToAppend } from '../types.js';
import { validateAppend } from '../validation.js';
import type { StreamHead } from './head-cache.js';
import type { AppendArgs, AppendRow, ChainedRow, InsertedRow } from './queries.js';

// Pure pieces of the append paths: what is sent, what is chained, what an answer means.

export const isUniqueViolation = (error: unknown, constraint?: string): boolean =>
  error instanceof Error &&
  (error as { code?: unknown }).code === '23505' &&
  (constraint === undefined || (error as { constraint?: unknown }).constraint === constraint);

/** An append validated and shaped for the queries. */
export const prepareAppend = (
  streamId: string,
  events: readonly EventToAppend[],
  appendOptions: AppendOptions,
): AppendArgs => {
  const expected = appendOptions.expectedRevision;
  return {
    streamId,
    expected: typeof expected === 'bigint' ? expected.toString() : expected,
    events: validateAppend(streamId, events, appendOptions).map((event) => ({
      id: event.id,
      type: event.type,
      content: event.content,
    })),
  };
};

/** Revisions and chain links for an append on top of `head`, computed here. */
export const chainRows = (args: AppendArgs, head: StreamHead | 'new'): ChainedRow[] => {
  let revision = head === 'new' ? -1n : head.revision;
  let prevHash = head === 'new' ? null : head.hash;
  return args.events.map((event) => {
    revision += 1n;
    const content = Buffer.from(event.content, 'utf8');
    const hash = chainHash(prevHash, revision, sha256Hex(content));
    const row: ChainedRow = {
      stream_id: args.streamId,
      stream_revision: revision.toString(),
      event_id: event.id,
      event_type: event.type,
      content,
      prev_hash: prevHash,
      hash,
    };
    prevHash = hash;
    return row;
  });
};

/**
 * The inserted rows of each part, in order: RETURNING keeps insertion order, so each part's
 * rows are the next slice.
 */
export const sliceInserted = <Row>(
  parts: readonly (readonly ChainedRow[])[],
  inserted: readonly Row[],
): Row[][] => {
  let end = 0;
  return parts.map((rows) => {
    const start = end;
    end += rows.length;
    if (inserted.length < end) throw new Error('insert returned too few rows');
    return inserted.slice(start, end);
  });
};

/** An append's result: its last inserted row. */
export const insertedResult = (inserted: readonly InsertedRow[]): AppendResult => {
  const last = inserted.at(-1);
  if (!last) throw new Error('insert returned too few rows');
  return {
    nextRevision: BigInt(last.stream_revision),
    position: encodePosition(BigInt(last.transaction_id), BigInt(last.position)),
  };
};

/** What append_events answered: a result (and whether it wrote), or the typed refusal. */
export const interpretAppendRow = (
  row: AppendRow,
  streamId: string,
  expected: AppendOptions['expectedRevision'],
): { result: AppendResult; wrote: boolean } => {
  switch (row.outcome) {
    case 'appended':
    case 'idempotent':
      if (row.next_revision === null || row.transaction_id === null || row.last_position === null)
        break;
      return {
        result: {
          nextRevision: BigInt(row.next_revision),
          position: encodePosition(BigInt(row.transaction_id), BigInt(row.last_position)),
        },
        wrote: row.outcome === 'appended',
      };
    case 'wrong_expected_version':
      throw new WrongExpectedVersion(
        streamId,
        expected,
        row.actual_revision === null ? null : BigInt(row.actual_revision),
      );
    case 'duplicate_event_id':
      throw new DuplicateEventId(row.conflict_event ?? '?', row.conflict_stream ?? '?');
  }
  throw new CogitaveError('INTERNAL', `append_events returned an unexpected row (${row.outcome})`);
};
