import type { Stage } from '../../../lifecycle/stages.js';
import {
  mayReadType,
  productInScopeSql,
  scopeSqlValues,
  type ReadScope,
} from '../../access/grants.js';
import type { Queryable } from '../../database/queryable.js';
import type { Position } from '../../event-store/types.js';
import { fromRequestRow, REQUEST_COLUMNS, type RequestRow } from './rows.js';
import { REQUEST_RESOURCE_TYPE, type RequestState, type RequestStatus } from './state.js';

/**
 * Typed reads of the Request read model. Each takes the caller's `ReadScope`: without the
 * `request` type nothing is read, and products outside it are filtered in SQL.
 */
const scopeValues = (scope: ReadScope): [boolean, string[] | null] => [
  mayReadType(scope, REQUEST_RESOURCE_TYPE),
  scopeSqlValues(scope).products,
];

export const getRequest = async (
  db: Queryable,
  scope: ReadScope,
  requestId: string,
): Promise<RequestState | undefined> => {
  const result = await db.query<RequestRow>(
    `SELECT ${REQUEST_COLUMNS.join(', ')} FROM read_model.requests
      WHERE request_id = $1 AND $2::boolean AND ${productInScopeSql('product', '$3')}`,
    [requestId, ...scopeValues(scope)],
  );
  const row = result.rows[0];
  return row ? fromRequestRow(row) : undefined;
};

export interface ListRequestsOptions {
  readonly stage?: Stage | undefined;
  readonly status?: RequestStatus | undefined;
  readonly product?: string | undefined;
  readonly requester?: string | undefined;
  /** Exclusive: the last request id of the previous page. */
  readonly afterId?: string | undefined;
  readonly limit: number;
}

/** A page of requests in request-id order (the cursor is the last id of the previous page). */
export const listRequests = async (
  db: Queryable,
  scope: ReadScope,
  options: ListRequestsOptions,
): Promise<RequestState[]> => {
  const result = await db.query<RequestRow>(
    `SELECT ${REQUEST_COLUMNS.join(', ')} FROM read_model.requests
      WHERE ($1::text IS NULL OR stage = $1) AND ($2::text IS NULL OR status = $2)
        AND ($3::text IS NULL OR product = $3) AND ($4::text IS NULL OR request_id > $4)
        AND $6::boolean AND ${productInScopeSql('product', '$7')}
        AND ($8::text IS NULL OR requester = $8)
      ORDER BY request_id LIMIT $5`,
    [
      options.stage ?? null,
      options.status ?? null,
      options.product ?? null,
      options.afterId ?? null,
      options.limit,
      ...scopeValues(scope),
      options.requester ?? null,
    ],
  );
  return result.rows.map(fromRequestRow);
};

export interface HistoryEntry {
  readonly position: Position;
  readonly revision: number;
  readonly eventId: string;
  readonly type: string;
  readonly actor: string;
  readonly at: string;
  readonly hash: string;
  readonly prevHash: string | null;
  readonly summary: string;
}

interface HistoryRow {
  position: string;
  stream_revision: string;
  event_id: string;
  type: string;
  actor: string;
  at: Date;
  hash: string;
  prev_hash: string | null;
  summary: string;
}

export const getRequestHistory = async (
  db: Queryable,
  scope: ReadScope,
  requestId: string,
): Promise<HistoryEntry[]> => {
  const result = await db.query<HistoryRow>(
    `SELECT h.position, h.stream_revision, h.event_id, h.type, h.actor, h.at, h.hash, h.prev_hash,
            h.summary
       FROM read_model.request_history h
       JOIN read_model.requests r ON r.request_id = h.request_id
      WHERE h.request_id = $1 AND $2::boolean AND ${productInScopeSql('r.product', '$3')}
      ORDER BY h.stream_revision`,
    [requestId, ...scopeValues(scope)],
  );
  return result.rows.map((row) => ({
    position: row.position as Position,
    revision: Number(row.stream_revision),
    eventId: row.event_id,
    type: row.type,
    actor: row.actor,
    at: row.at.toISOString(),
    hash: row.hash,
    prevHash: row.prev_hash,
    summary: row.summary,
  }));
};
