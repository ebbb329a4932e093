import type { MigrationSet } from '../../services/database/migrate.js';
import type { RecordedEvent } from '../../services/event-store/types.js';
import { REQUEST_EVENT_TYPES, requestStreamId } from '../../services/requests/events.js';
import { resourcesTable, writeResources, type ResourceWrite } from '../resources.js';
import type { Projection, ProjectionTransaction, ResourceChanges } from '../types.js';
import { parseRequestEvent } from './parse.js';
import { fromRequestRow, REQUEST_COLUMNS, toRequestRow, type RequestRow } from './rows.js';
import {
  evolveRequest,
  REQUEST_RESOURCE_TYPE,
  requestDocument,
  summarize,
  type RequestState,
} from './state.js';

export const REQUESTS_PROJECTION = 'requests';

export const requestsMigrations: MigrationSet = {
  owner: 'projection-requests',
  directory: new URL('./migrations/', import.meta.url),
};

const STREAM_PREFIX = requestStreamId('');

const HISTORY_COLUMNS = [
  'position',
  'request_id',
  'stream_revision',
  'event_id',
  'type',
  'actor',
  'at',
  'hash',
  'prev_hash',
  'summary',
] as const;

const columns = (names: readonly string[]): string => names.join(', ');

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

/**
 * A batch is folded in memory: the touched requests are read once, every event is folded in
 * log order, then the requests, their history and their resources are written with one
 * statement each.
 */
const apply = async (
  events: readonly RecordedEvent[],
  tx: ProjectionTransaction,
): Promise<ResourceChanges> => {
  const parsed = events.map((recorded) => {
    const event = parseRequestEvent(recorded);
    if (recorded.streamId !== requestStreamId(event.data.requestId)) {
      throw new Error(
        `${recorded.type} names request ${event.data.requestId} but is stored on stream ${recorded.streamId}`,
      );
    }
    return { recorded, event };
  });
  const ids = [...new Set(parsed.map(({ event }) => event.data.requestId))];
  const states = await loadRequests(tx, ids);
  const existed = new Set(states.keys());
  const history = parsed.map(({ recorded, event }) => {
    states.set(
      event.data.requestId,
      evolveRequest(states.get(event.data.requestId), recorded, event),
    );
    return {
      position: recorded.position,
      request_id: event.data.requestId,
      stream_revision: recorded.revision.toString(),
      event_id: recorded.id,
      type: recorded.type,
      actor: recorded.metadata.actor,
      at: recorded.metadata.at,
      hash: recorded.hash,
      prev_hash: recorded.prevHash,
      summary: summarize(event),
    };
  });
  const touched = ids.map((id) => states.get(id)).filter((state) => state !== undefined);

  const updatable = REQUEST_COLUMNS.filter((column) => column !== 'request_id');
  await tx.query(
    `INSERT INTO requests (${columns(REQUEST_COLUMNS)})
     SELECT ${columns(REQUEST_COLUMNS)} FROM jsonb_populate_recordset(NULL::requests, $1::jsonb)
     ON CONFLICT (request_id) DO UPDATE SET (${columns(updatable)}) =
       ROW(${updatable.map((column) => `EXCLUDED.${column}`).join(', ')})`,
    [JSON.stringify(touched.map(toRequestRow))],
  );
  await tx.query(
    `INSERT INTO request_history (${columns(HISTORY_COLUMNS)})
     SELECT ${columns(HISTORY_COLUMNS)} FROM jsonb_populate_recordset(NULL::request_history, $1::jsonb)`,
    [JSON.stringify(history)],
  );
  const resources: ResourceWrite[] = touched.map((state) => ({
    uri: state.uri,
    type: REQUEST_RESOURCE_TYPE,
    product: state.product,
    title: state.title,
    document: requestDocument(state),
    lastModified: state.updatedAt,
    position: state.lastPosition,
    created: !existed.has(state.requestId),
  }));
  return writeResources(tx, REQUESTS_PROJECTION, resources);
};

/** The Request read model: `read_model.requests`, `request_history` and their resources. */
export const requestsProjection: Projection = {
  name: REQUESTS_PROJECTION,
  filter: { streamPrefixes: [STREAM_PREFIX], eventTypes: REQUEST_EVENT_TYPES },
  migrations: requestsMigrations,
  tables: [
    { name: 'requests', orderBy: ['request_id'] },
    { name: 'request_history', orderBy: ['position'] },
    resourcesTable(REQUESTS_PROJECTION),
  ],
  apply,
};
