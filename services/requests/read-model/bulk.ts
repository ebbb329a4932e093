import { CopyText } from '../../database/copy.js';
import type { RecordedEvent } from '../../event-store/types.js';
import { resourceBulkRows } from '../../../projections/resources.js';
import type { BulkRebuild, BulkRows } from '../../../projections/types.js';
import { parseStoredRequestEvent } from '../parse.js';
import { HISTORY_COLUMNS, REQUEST_COLUMNS, toHistoryRow, toRequestRow } from './rows.js';
import { evolveRequest, REQUESTS_PROJECTION, requestResource, type RequestState } from './state.js';

/** Requests written per slice of `finish` (with their resources). */
const FINISH_SLICE = 5000;

const rowsOf = (table: string, text: CopyText): BulkRows => ({
  table,
  columns: text.columns,
  rows: text.rows,
  chunks: text.chunks(),
});

/** The rows of some requests and of their resources. */
const stateRows = (states: readonly RequestState[]): BulkRows[] => {
  const requests = new CopyText(REQUEST_COLUMNS);
  for (const state of states) {
    requests.addRow(toRequestRow(state));
  }
  const resources = resourceBulkRows(
    REQUESTS_PROJECTION,
    states.map((state) => requestResource(state, true)),
  );
  return [rowsOf('requests', requests), resources];
};

/**
 * The requests projection rebuilt from position zero (see `BulkRebuild`): the same parse,
 * fold and row builders as `apply`, with every request's state held until the end, so each
 * request, and its resource, is written once instead of once per batch that touched it.
 * History rows go out with their batch. Memory: one state per request (~2 KB).
 */
export const rebuildRequests = (): BulkRebuild => {
  const states = new Map<string, RequestState>();
  return {
    fold: (events: readonly RecordedEvent[]): BulkRows[] => {
      const history = new CopyText(HISTORY_COLUMNS);
      for (const recorded of events) {
        const event = parseStoredRequestEvent(recorded);
        const id = event.data.requestId;
        states.set(id, evolveRequest(states.get(id), recorded, event));
        history.addRow(toHistoryRow(recorded, event));
      }
      return [rowsOf('request_history', history)];
    },
    finish: function* (): Generator<BulkRows> {
      let slice: RequestState[] = [];
      for (const state of states.values()) {
        slice.push(state);
        if (slice.length < FINISH_SLICE) continue;
        yield* stateRows(slice);
        slice = [];
      }
      if (slice.length > 0) yield* stateRows(slice);
      states.clear();
    },
  };
};
