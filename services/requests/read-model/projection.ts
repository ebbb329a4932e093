import type { MigrationSet } from '../../database/migrate.js';
import type { RecordedEvent } from '../../event-store/types.js';
import { REQUEST_EVENT_TYPES, requestStreamId } from '../events.js';
import {
  prepareResources,
  resourcesTable,
  upsertResources,
} from '../../../projections/resources.js';
import type {
  Projection,
  ProjectionTransaction,
  ResourceChanges,
} from '../../../projections/types.js';
import { rebuildRequests } from './bulk.js';
import { parseStoredRequestEvent } from '../parse.js';
import {
  fromRequestRow,
  HISTORY_COLUMNS,
  REQUEST_COLUMNS,
  toHistoryRow,
  toRequestRow,
  type HistoryRow,
  type RequestRow,
} from './rows.js';
import { evolveRequest, REQUESTS_PROJECTION, requestResource, type RequestState } from './state.js';

export { REQUESTS_PROJECTION } from './state.js';

export const requestsMigrations: MigrationSet = {
  owner: 'projection-requests',
  directory: new URL('./migrations/', import.meta.url),
};

const STREAM_PREFIX = requestStreamId('');

const columns = (names: readonly string[]): string => names.join(', ');

const UPDATABLE = REQUEST_COLUMNS.filter((column) => column !== 'request_id');

/*
 * Rows travel as one JSON text per statement: JSON.stringify is the cheapest serialiser the
 * process has, and `json_populate_recordset` (json, not jsonb) reads the text once without
 * building a binary document of the whole batch first.
 */
const UPSERT_REQUESTS = `INSERT INTO requests (${columns(REQUEST_COLUMNS)})
  SELECT ${columns(REQUEST_COLUMNS)} FROM json_populate_recordset(NULL::requests, $1::json)
  ON CONFLICT (request_id) DO UPDATE SET (${columns(UPDATABLE)}) =
    ROW(${UPDATABLE.map((column) => `EXCLUDED.${column}`).join(', ')})`;

const INSERT_HISTORY = `INSERT INTO request_history (${columns(HISTORY_COLUMNS)})
  SELECT ${columns(HISTORY_COLUMNS)} FROM json_populate_recordset(NULL::request_history, $1::json)`;

const loadRequests = async (
  tx: ProjectionTransaction,
  ids: readonly string[],
): Promise<Map<string, RequestState>> => {
  const result = await tx.query<RequestRow>(
    `SELECT ${columns(REQUEST_COLUMNS)} FROM requests WHERE request_id = ANY($1::text[])`,
    [ids],
  );
  return new Map(result.rows.map((row) => [row.request_id, fromRequestRow(row)]));
};

/** The `requestId` strings of the events' data, unchecked (see `apply`). */
const rawRequestIds = (events: readonly RecordedEvent[]): string[] => {
  const ids = new Set<string>();
  for (const { data } of events) {
    const id: unknown =
      typeof data === 'object' && data !== null
        ? (data as { requestId?: unknown }).requestId
        : undefined;
    if (typeof id === 'string') ids.add(id);
  }
  return [...ids];
};

/**
 * Runs `work` while `statement` executes, then waits for the statement. If the work throws,
 * the statement is still waited for (its client must be idle before the batch rolls back).
 */
const whileRunning = async <T>(statement: Promise<unknown>, work: () => T): Promise<T> => {
  let result: T;
  try {
    result = work();
  } catch (error) {
    await statement.catch(() => undefined);
    throw error;
  }
  await statement;
  return result;
};

/**
 * A batch is folded in memory: the touched requests are read once, every event is folded in
 * log order, then the requests, their history and their resources are written with one
 * statement each.
 */
const apply = async (
  events: readonly RecordedEvent[],
  tx: ProjectionTransaction,
): Promise<ResourceChanges> => {
  // The touched requests are read while the events are validated: a valid event's
  // requestId is the one in its raw data.
  const loading = loadRequests(tx, rawRequestIds(events));
  const parsed = await whileRunning(loading, () =>
    events.map((recorded) => ({ recorded, event: parseStoredRequestEvent(recorded) })),
  );
  const ids = [...new Set(parsed.map(({ event }) => event.data.requestId))];
  const states = await loading;
  const existed = new Set(states.keys());
  const history = parsed.map(({ recorded, event }): HistoryRow => {
    states.set(
      event.data.requestId,
      evolveRequest(states.get(event.data.requestId), recorded, event),
    );
    return toHistoryRow(recorded, event);
  });
  const touched = ids.map((id) => states.get(id)).filter((state) => state !== undefined);

  // Each statement is sent before the CPU work of the next one (serialising, hashing), so
  // this process and the database work at the same time instead of in turn.
  const historyJson = await whileRunning(
    tx.query(UPSERT_REQUESTS, [JSON.stringify(touched.map(toRequestRow))]),
    () => JSON.stringify(history),
  );
  const resources = await whileRunning(tx.query(INSERT_HISTORY, [historyJson]), () =>
    prepareResources(
      REQUESTS_PROJECTION,
      touched.map((state) => requestResource(state, !existed.has(state.requestId))),
    ),
  );
  return upsertResources(tx, resources);
};

/** The Request read model: `read_model.requests`, `request_history` and their resources. */
export const requestsProjection: Projection = {
  name: REQUESTS_PROJECTION,
  filter: { streamPrefixes: [STREAM_PREFIX], eventTypes: REQUEST_EVENT_TYPES },
  migrations: requestsMigrations,
  tables: [
    // Upserts conflict on the primary keys only; history is insert-only.
    { name: 'requests', orderBy: ['request_id'], deferUniqueIndexes: true },
    { name: 'request_history', orderBy: ['position'], deferUniqueIndexes: true },
    resourcesTable(REQUESTS_PROJECTION),
  ],
  apply,
  bulkRebuild: rebuildRequests,
  rebuildsByStream: true,
  moduleUrl: import.meta.url,
};
