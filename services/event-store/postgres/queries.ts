import { hash } from 'node:crypto';
import type { Queryable } from '../../database/queryable.js';
import { decodePosition, encodePosition } from '../position.js';
import type {
  Direction,
  EventFilter,
  EventMetadata,
  Position,
  RecordedEvent,
  StreamPartition,
} from '../types.js';

interface EventRow {
  position: string;
  transaction_id: string;
  stream_id: string;
  stream_revision: string;
  event_id: string;
  event_type: string;
  content: string;
  prev_hash: string | null;
  hash: string;
}

// No jsonb: `content` is plain text, sent as stored and parsed once here.
const EVENT_COLUMNS = `position, transaction_id, stream_id, stream_revision, event_id, event_type,
  content, prev_hash, hash`;

const HEX_WIDTH = 16;

/**
 * encodePosition of two decimal strings. Both parts fit a double in practice, and then plain
 * number formatting gives the same text several times faster than BigInt arithmetic (this
 * runs for every event read: replays read millions).
 */
const positionOf = (transactionId: string, position: string): Position => {
  const major = Number(transactionId);
  const minor = Number(position);
  if (!Number.isSafeInteger(major) || !Number.isSafeInteger(minor) || major < 0 || minor < 0) {
    return encodePosition(BigInt(transactionId), BigInt(position));
  }
  return `${major.toString(16).padStart(HEX_WIDTH, '0')}-${minor.toString(16).padStart(HEX_WIDTH, '0')}` as Position;
};

/** The data and metadata of a stored content. */
const parseContent = (content: string): { data: unknown; metadata: EventMetadata } =>
  JSON.parse(content) as { data: unknown; metadata: EventMetadata };

const toRecordedEvent = (row: EventRow): RecordedEvent => {
  const { data, metadata } = parseContent(row.content);
  return {
    id: row.event_id,
    streamId: row.stream_id,
    revision: BigInt(row.stream_revision),
    position: positionOf(row.transaction_id, row.position),
    type: row.event_type,
    data,
    metadata,
    content: row.content,
    prevHash: row.prev_hash,
    hash: row.hash,
  };
};

export interface AppendRow {
  outcome: 'appended' | 'idempotent' | 'wrong_expected_version' | 'duplicate_event_id';
  next_revision: string | null;
  transaction_id: string | null;
  last_position: string | null;
  actual_revision: string | null;
  conflict_stream: string | null;
  conflict_event: string | null;
  last_hash: string | null;
}

export interface PreparedEvent {
  readonly id: string;
  readonly type: string;
  /** The canonical content (see hash-chain.ts); append_events hashes it itself. */
  readonly content: string;
}

export interface AppendArgs {
  readonly streamId: string;
  /** 'any' | 'no_stream' | 'stream_exists' | a revision as decimal text. */
  readonly expected: string;
  readonly events: readonly PreparedEvent[];
}

/**
 * The general append (see append_events in the migration): one round trip; the batch travels
 * as one JSON document (cheaper than five typed arrays). A named statement is parsed and
 * planned once per connection (`named` is false for PGlite, whose pg shim mishandles them).
 */
export const appendEvents = async (
  db: Queryable,
  args: AppendArgs,
  named = true,
): Promise<AppendRow> => {
  const result = await db.query<AppendRow>({
    ...(named ? { name: 'cogitave_append_events' } : {}),
    text: 'SELECT * FROM event_store.append_events($1, $2, $3::jsonb)',
    values: [args.streamId, args.expected, JSON.stringify(args.events)],
  });
  const row = result.rows[0];
  if (!row) throw new Error('append_events returned no row');
  return row;
};

/** A row whose revision and chain links the adapter computed from a known stream head. */
export interface ChainedRow {
  readonly stream_id: string;
  readonly stream_revision: string;
  readonly event_id: string;
  readonly event_type: string;
  /** The canonical content's UTF-8 bytes: encoded once, hashed and sent as they are. */
  readonly content: Buffer;
  readonly prev_hash: string | null;
  readonly hash: string;
}

export interface InsertedRow {
  readonly stream_id: string;
  readonly stream_revision: string;
  readonly position: string;
  readonly transaction_id: string;
}

/**
 * The fast path: a plain multi-row INSERT, for rows of one or many appends. No lock is
 * needed: the unique (stream_id, stream_revision) index refuses a row whose revision another
 * writer took first (SQLSTATE 23505), and the adapter then takes the general path.
 *
 * The rows' small fields travel as one JSON document; their contents as one binary parameter
 * of their UTF-8 bytes, each row naming its slice. Inside the JSON document the contents
 * (JSON text themselves) were escaped again, measured in UTF-8 again and parsed by the server:
 * most of an ingest's append time at 10,000 pages.
 */
export const insertChained = async (
  db: Queryable,
  rows: readonly ChainedRow[],
  named = true,
): Promise<InsertedRow[]> => {
  let start = 0;
  const meta = rows.map((row) => {
    const slice = { start, length: row.content.length };
    start += row.content.length;
    return {
      stream_id: row.stream_id,
      stream_revision: row.stream_revision,
      event_id: row.event_id,
      event_type: row.event_type,
      prev_hash: row.prev_hash,
      hash: row.hash,
      ...slice,
    };
  });
  const result = await db.query<InsertedRow>({
    ...(named ? { name: 'cogitave_insert_chained_slices' } : {}),
    text: `INSERT INTO event_store.events
             (transaction_id, stream_id, stream_revision, event_id, event_type, content, prev_hash, hash)
           SELECT pg_current_xact_id(), r.stream_id, r.stream_revision, r.event_id, r.event_type,
                  convert_from(substring($2::bytea FROM r.start + 1 FOR r.length), 'UTF8'),
                  r.prev_hash, r.hash
             FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (stream_id text, stream_revision bigint,
                  event_id uuid, event_type text, start integer, length integer, prev_hash text,
                  hash text))
                  WITH ORDINALITY AS r(stream_id, stream_revision, event_id, event_type, start,
                  length, prev_hash, hash, ord)
            ORDER BY r.ord
           RETURNING stream_id, stream_revision, position, transaction_id`,
    values: [
      JSON.stringify(meta),
      Buffer.concat(
        rows.map((row) => row.content),
        start,
      ),
    ],
  });
  return result.rows;
};

/** Which stream already holds one of these ids (after a unique violation on event_id). */
export const selectEventOwner = async (
  db: Queryable,
  ids: readonly string[],
): Promise<{ event_id: string; stream_id: string } | undefined> => {
  const result = await db.query<{ event_id: string; stream_id: string }>(
    'SELECT event_id, stream_id FROM event_store.events WHERE event_id = ANY($1::uuid[]) LIMIT 1',
    [ids],
  );
  return result.rows[0];
};

export const selectStream = async (
  db: Queryable,
  streamId: string,
  direction: Direction,
  fromRevision: bigint | undefined,
  maxCount: number,
): Promise<RecordedEvent[]> => {
  const forwards = direction === 'forwards';
  const result = await db.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM event_store.events
      WHERE stream_id = $1 AND ($2::bigint IS NULL OR stream_revision ${forwards ? '>=' : '<='} $2::bigint)
      ORDER BY stream_revision ${forwards ? 'ASC' : 'DESC'} LIMIT $3`,
    [streamId, fromRevision?.toString() ?? null, maxCount],
  );
  return result.rows.map(toRecordedEvent);
};

export interface LogPage {
  readonly events: RecordedEvent[];
  /**
   * Forwards only: the last visible position of the whole log when this page reached its end,
   * so a filtered subscription can move past events it does not want without re-scanning them.
   */
  readonly scannedTo: Position | null;
}

/** A statement name per shape of text: a few dozen at most (direction, position, filter kinds). */
const logStatementName = (text: string): string =>
  `cogitave_log_${hash('sha1', text, 'hex').slice(0, 16)}`;

/**
 * A page of the global log in (transaction_id, position) order. Only rows of transactions
 * older than the oldest still running are visible: a transaction that commits late can then
 * never slip in behind a reader's checkpoint.
 */
export const selectLog = async (
  db: Queryable,
  direction: Direction,
  after: Position | undefined,
  maxCount: number,
  filter: EventFilter | undefined,
  named = true,
): Promise<LogPage> => {
  const forwards = direction === 'forwards';
  const params: unknown[] = [maxCount];
  const where: string[] = ['e.transaction_id < h.xmin'];
  if (after !== undefined) {
    const { major, minor } = decodePosition(after);
    params.push(major.toString(), minor.toString());
    where.push(
      `(e.transaction_id, e.position) ${forwards ? '>' : '<'} ($2::text::xid8, $3::bigint)`,
    );
  }
  if (filter?.streamPrefixes?.length) {
    params.push(filter.streamPrefixes.map((prefix) => `${prefix.replace(/[\\%_]/g, '\\$&')}%`));
    where.push(`e.stream_id LIKE ANY ($${params.length}::text[])`);
  }
  if (filter?.eventTypes?.length) {
    params.push(filter.eventTypes);
    where.push(`e.event_type = ANY ($${params.length}::text[])`);
  }
  if (filter?.partition) {
    // A partition is a set of the 64 stream buckets (see migration 002_stream_buckets).
    params.push(bucketsOf(filter.partition));
    where.push(`(hashtext(e.stream_id) & 63) = ANY ($${params.length}::int[])`);
  }
  const order = forwards ? 'ASC' : 'DESC';
  const filtered =
    (filter?.streamPrefixes?.length ?? 0) > 0 ||
    (filter?.eventTypes?.length ?? 0) > 0 ||
    filter?.partition !== undefined;
  const wantEnd = forwards && filtered;
  const columns = EVENT_COLUMNS.split(',').map((column) => `e.${column.trim()}`);
  // One statement, one snapshot: the page and the log's visible end are read together. Rows
  // come as arrays (LOG_ROW order): replays read millions, and an object per row with twelve
  // named properties cost more than the rest of the decoding. The end comes on a row of its
  // own (event columns null) rather than repeated on every row: two strings fewer per event.
  const text = `WITH ${VISIBILITY_HORIZON},
     page AS (
       SELECT ${columns.join(', ')}
         FROM event_store.events e, h
        WHERE ${where.join(' AND ')}
        ORDER BY e.transaction_id ${order}, e.position ${order}
        LIMIT $1),
     log_end AS (
       SELECT e.transaction_id, e.position FROM event_store.events e, h
        WHERE ${wantEnd ? 'e.transaction_id < h.xmin' : 'false'}
        ORDER BY e.transaction_id DESC, e.position DESC LIMIT 1)
     SELECT page.*, NULL::xid8 AS end_tx, NULL::bigint AS end_position FROM page
     UNION ALL
     SELECT ${columns.map(() => 'NULL').join(', ')}, log_end.transaction_id, log_end.position
       FROM (SELECT 1) AS one LEFT JOIN log_end ON true
     ORDER BY transaction_id ${order} NULLS LAST, position ${order} NULLS LAST`;
  const result = await db.query<LogRow>({
    rowMode: 'array',
    // Every subscriber runs this after every append: parsing and planning it (the horizon
    // expands pg_stat_activity) cost more than reading the page. One name per shape of text.
    ...(named ? { name: logStatementName(text) } : {}),
    text,
    values: params,
  });
  const events: RecordedEvent[] = [];
  let endTx: string | null = null;
  let endPosition: string | null = null;
  for (const row of result.rows) {
    // The last row is the log's end (null when not asked for); the others are the page's.
    if (row[4] !== null) events.push(fromLogRow(row));
    else [endTx, endPosition] = [row[9], row[10]];
  }
  const scannedTo =
    wantEnd && events.length < maxCount && endTx !== null && endPosition !== null
      ? encodePosition(BigInt(endTx), BigInt(endPosition))
      : null;
  return { events, scannedTo };
};

/** Stream buckets (`hashtext(stream_id) & 63`) of a partition: those equal to its index mod count. */
const bucketsOf = ({ count, index }: StreamPartition): number[] =>
  Array.from({ length: 64 }, (_, bucket) => bucket).filter((bucket) => bucket % count === index);

/**
 * A row of `selectLog`: the EVENT_COLUMNS in order and two nulls for an event; for the last
 * row, nulls and then the transaction id and position of the log's visible end.
 */
type LogRow = [
  position: string | null,
  transactionId: string | null,
  streamId: string | null,
  streamRevision: string | null,
  eventId: string | null,
  eventType: string | null,
  content: string | null,
  prevHash: string | null,
  hash: string | null,
  endTx: string | null,
  endPosition: string | null,
];

/** `toRecordedEvent` of a LogRow whose event columns are set. */
const fromLogRow = (row: LogRow): RecordedEvent => {
  const content = row[6] as string;
  const { data, metadata } = parseContent(content);
  return {
    id: row[4] as string,
    streamId: row[2] as string,
    revision: BigInt(row[3] as string),
    position: positionOf(row[1] as string, row[0] as string),
    type: row[5] as string,
    data,
    metadata,
    content,
    prevHash: row[7],
    hash: row[8] as string,
  };
};

/**
 * `h.xmin`: the oldest transaction of *this database* that the statement's snapshot still sees
 * in progress; events of transactions below it are final, so a reader may pass them without
 * ever skipping a later commit. `pg_snapshot_xmin` alone is cluster-wide: a long transaction
 * in any other database would hold every subscriber back. So the snapshot's in-progress list
 * drops only the xids positively seen running in another database (pg_stat_activity);
 * everything else counts, including transactions that ended after the snapshot was taken
 * (their rows are invisible to this statement) and prepared ones. Erring that way only delays.
 */
const VISIBILITY_HORIZON = `s AS (SELECT pg_current_snapshot() AS snap),
     h AS (
       SELECT coalesce(
         (SELECT min(x) FROM pg_snapshot_xip(s.snap) AS x
           WHERE (x::text::numeric % 4294967296)::bigint NOT IN (
             SELECT a.backend_xid::text::bigint FROM pg_stat_activity a
              WHERE a.backend_xid IS NOT NULL
                AND a.datid IS DISTINCT FROM (SELECT oid FROM pg_database WHERE datname = current_database()))),
         pg_snapshot_xmax(s.snap)) AS xmin
       FROM s)`;

/** The newest committed event, whether or not the visibility horizon has passed it. */
export const selectLastPosition = async (db: Queryable): Promise<Position | null> => {
  const result = await db.query<{ transaction_id: string; position: string }>(
    `SELECT transaction_id::text AS transaction_id, position::text AS position
       FROM event_store.events ORDER BY transaction_id DESC, position DESC LIMIT 1`,
  );
  const row = result.rows[0];
  return row ? positionOf(row.transaction_id, row.position) : null;
};

export const notifyChannel = 'cogitave_events';

/** `sender` names the store that appended, so it can ignore its own notification. */
export const sendNotify = async (db: Queryable, sender: string): Promise<void> => {
  await db.query(`SELECT pg_notify('${notifyChannel}', $1)`, [sender]);
};
