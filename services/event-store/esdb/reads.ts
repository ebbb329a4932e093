import { END, START, type ReadPosition, type ResolvedEvent } from '@eventstore/db-client';
import { comparePositions } from '../position.js';
import type {
  Direction,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
} from '../types.js';
import { validateReadAll } from '../validation.js';
import type { EsdbConnection } from './connection.js';
import {
  fromClientEvent,
  isStreamNotFound,
  toClientPosition,
  toCogitaveError,
  toFilterPlan,
  toPosition,
} from './mapping.js';

/** Same default as the Postgres adapter, so callers see one behaviour. */
const DEFAULT_READ_COUNT = 1000;
/** Largest request of readAll, which skips system and filtered-out events client-side. */
const MAX_PAGE_SIZE = 4096;

/** Exclusive bounds: strictly after (forwards) or strictly before (backwards). */
export const isBeyond = (
  position: Position,
  bound: Position | undefined,
  direction: Direction,
): boolean =>
  bound === undefined ||
  comparePositions(position, bound) * (direction === 'forwards' ? 1 : -1) > 0;

/** One stream's events as the client returns them; empty when the stream does not exist. */
export const readRaw = (
  { client, retrying, collect }: EsdbConnection,
  streamId: string,
  read: ReadStreamOptions = {},
): Promise<ResolvedEvent[]> => {
  const direction = read.direction ?? 'forwards';
  return retrying('read', { streamId }, async () => {
    try {
      return await collect(
        client.readStream(streamId, {
          direction,
          fromRevision: read.fromRevision ?? (direction === 'forwards' ? START : END),
          maxCount: read.maxCount ?? DEFAULT_READ_COUNT,
        }),
      );
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw toCogitaveError(error, { streamId });
    }
  });
};

export const readStream = async (
  connection: EsdbConnection,

  streamId: string,
  read: ReadStreamOptions = {},
): Promise<RecordedEvent[]> =>
  (await readRaw(connection, streamId, read)).flatMap((item) =>
    item.event ? [fromClientEvent(item.event)] : [],
  );

/** A page of $all, filtered here. */
export const readAll = async (
  { client, retrying, collect }: EsdbConnection,
  read: ReadAllOptions = {},
): Promise<RecordedEvent[]> => {
  validateReadAll(read);
  const direction = read.direction ?? 'forwards';
  const limit = read.maxCount ?? DEFAULT_READ_COUNT;
  // Client 6.x sends no filter with readAll, so the filter (and system events) is applied
  // here, page by page, until enough events match or the log ends.
  const { accepts } = toFilterPlan(read.filter);
  const found: RecordedEvent[] = [];
  let bound = read.fromPosition;
  // Start near what is asked for, then grow while filtered-out events fill the pages.
  let pageSize = Math.min(limit + 16, MAX_PAGE_SIZE);
  let cursor: ReadPosition = bound
    ? toClientPosition(bound)
    : direction === 'forwards'
      ? START
      : END;
  for (;;) {
    const from = cursor;
    const page = await retrying('read of $all', {}, () =>
      collect(client.readAll({ direction, fromPosition: from, maxCount: pageSize })),
    );
    for (const { event } of page) {
      // The client's fromPosition is inclusive: the bound itself is skipped here.
      if (!event || !isBeyond(toPosition(event.position), bound, direction) || !accepts(event))
        continue;
      found.push(fromClientEvent(event));
      if (found.length >= limit) return found;
    }
    const last = page.at(-1)?.event;
    if (page.length < pageSize || !last) return found;
    bound = toPosition(last.position);
    cursor = last.position;
    pageSize = Math.min(pageSize * 2, MAX_PAGE_SIZE);
  }
};
