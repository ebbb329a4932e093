import type { Database } from '../../database/database.js';
import { mapDatabaseError } from '../../database/transient.js';
import type { Position, ReadAllOptions, ReadStreamOptions, RecordedEvent } from '../types.js';
import { validateReadAll, validateReadStream } from '../validation.js';
import type { HeadCache } from './head-cache.js';
import { selectLastPosition, selectLog, selectStream } from './queries.js';

const DEFAULT_READ_COUNT = 1000;

const rethrowMapped = (error: unknown): never => {
  throw mapDatabaseError(error);
};

/** One stream's events; its newest head is remembered for the append fast path. */
export const readStream = async (
  database: Database,
  heads: HeadCache,
  streamId: string,
  readOptions: ReadStreamOptions = {},
): Promise<RecordedEvent[]> => {
  validateReadStream(streamId, readOptions);
  const events = await selectStream(
    database.pool,
    streamId,
    readOptions.direction ?? 'forwards',
    readOptions.fromRevision,
    readOptions.maxCount ?? DEFAULT_READ_COUNT,
  ).catch(rethrowMapped);
  // A decider reads, then appends at the newest revision: remember it for the fast path.
  const newest = events.reduce<RecordedEvent | undefined>(
    (max, event) => (max && max.revision >= event.revision ? max : event),
    undefined,
  );
  if (newest) heads.remember(streamId, { revision: newest.revision, hash: newest.hash });
  return events;
};

/** A page of the whole log. */
export const readAll = async (
  database: Database,
  readOptions: ReadAllOptions = {},
): Promise<RecordedEvent[]> => {
  validateReadAll(readOptions);
  const page = await selectLog(
    database.pool,
    readOptions.direction ?? 'forwards',
    readOptions.fromPosition,
    readOptions.maxCount ?? DEFAULT_READ_COUNT,
    readOptions.filter,
    database.kind === 'postgres',
  ).catch(rethrowMapped);
  return page.events;
};

export const lastPosition = (database: Database): Promise<Position | null> =>
  selectLastPosition(database.pool).catch(rethrowMapped);
