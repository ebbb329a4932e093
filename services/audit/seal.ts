import type { Database } from '../database/database.js';
import type { MigrationSet } from '../database/migrate.js';
import type { Queryable } from '../database/queryable.js';
import { inTransaction } from '../database/transaction.js';
import type { EventStore, Position, RecordedEvent } from '../event-store/types.js';
import { logLinkHash } from './log-chain.js';

export const auditMigrations: MigrationSet = {
  owner: 'audit',
  directory: new URL('./migrations/', import.meta.url),
};

/** One sealed event: where the global chain had it, and the chain's link there. */
export interface SealedLink {
  readonly sequence: bigint;
  readonly position: Position;
  readonly streamId: string;
  readonly revision: bigint;
  readonly eventId: string;
  readonly logHash: string;
}

interface LinkRow {
  sequence: string;
  position: string;
  stream_id: string;
  stream_revision: string;
  event_id: string;
  log_hash: string;
}

const LINK_COLUMNS = 'sequence, position, stream_id, stream_revision, event_id, log_hash';

const toLink = (row: LinkRow): SealedLink => ({
  sequence: BigInt(row.sequence),
  position: row.position as Position,
  streamId: row.stream_id,
  revision: BigInt(row.stream_revision),
  eventId: row.event_id,
  logHash: row.log_hash,
});

/** The newest link, or null while nothing is sealed. */
export const readSealHead = async (db: Queryable): Promise<SealedLink | null> => {
  const { rows } = await db.query<LinkRow>(
    `SELECT ${LINK_COLUMNS} FROM audit.log_links ORDER BY sequence DESC LIMIT 1`,
  );
  return rows[0] ? toLink(rows[0]) : null;
};

/** Links in sequence order, from `fromSequence` (inclusive). */
export const readLinks = async (
  db: Queryable,
  fromSequence: bigint,
  limit: number,
): Promise<SealedLink[]> => {
  const { rows } = await db.query<LinkRow>(
    `SELECT ${LINK_COLUMNS} FROM audit.log_links WHERE sequence >= $1 ORDER BY sequence LIMIT $2`,
    [fromSequence.toString(), limit],
  );
  return rows.map(toLink);
};

/** The links that extend `head` over `events` (the next events of the log, in order). */
export const linksAfter = (
  head: SealedLink | null,
  events: readonly RecordedEvent[],
): SealedLink[] => {
  let sequence = head ? head.sequence : -1n;
  let logHash = head ? head.logHash : null;
  return events.map((event) => {
    sequence += 1n;
    logHash = logLinkHash(logHash, sequence, event.hash);
    return {
      sequence,
      position: event.position,
      streamId: event.streamId,
      revision: event.revision,
      eventId: event.id,
      logHash,
    };
  });
};

// "cogitave-seal" in ASCII: sealers of every process take turns.
const SEAL_LOCK_KEY = 0x636f_6769_7365_616cn;
const SEAL_PAGE = 2000;

export interface SealOptions {
  readonly database: Database;
  readonly eventStore: EventStore;
  readonly signal?: AbortSignal;
  /** Events read and sealed per transaction (default 2000). */
  readonly pageSize?: number;
}

/**
 * Seals every event final in the log that is not sealed yet, and returns the newest link.
 * Safe from any number of processes: each page is inserted under a transaction-scoped lock
 * after checking the head it extends is still the newest (else the page is read again). The
 * events are read before the lock is taken: PGlite has a single connection.
 */
export const sealLog = async (options: SealOptions): Promise<SealedLink | null> => {
  const { database, eventStore } = options;
  const pageSize = options.pageSize ?? SEAL_PAGE;
  let head = await readSealHead(database.pool);
  for (;;) {
    options.signal?.throwIfAborted();
    const events = await eventStore.readAll({
      ...(head ? { fromPosition: head.position } : {}),
      maxCount: pageSize,
    });
    if (events.length === 0) return head;
    const links = linksAfter(head, events);
    head = await inTransaction(database.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [SEAL_LOCK_KEY.toString()]);
      const current = await readSealHead(client);
      // Another sealer went first: read on from where it stopped.
      if (current?.sequence !== head?.sequence) return current;
      await client.query(
        `INSERT INTO audit.log_links (${LINK_COLUMNS})
         SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::uuid[], $6::text[])`,
        [
          links.map((link) => link.sequence.toString()),
          links.map((link) => link.position),
          links.map((link) => link.streamId),
          links.map((link) => link.revision.toString()),
          links.map((link) => link.eventId),
          links.map((link) => link.logHash),
        ],
      );
      return links.at(-1) ?? current;
    });
  }
};
