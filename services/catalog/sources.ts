import { createHash } from 'node:crypto';
import { v5 } from 'uuid';
import { z } from 'zod';
import { canonicalJson } from '../event-store/hash-chain.js';
import type { EventStore } from '../event-store/types.js';
import { NODE_EVENT_NAMESPACE } from './decide.js';

/**
 * Sources: every ingest belongs to one named source (a documentation folder), and only an
 * ingest of that source revises or retires its nodes. The shipped corpus is the source
 * `cogitave-core`; nodes published before sources existed belong to none (`legacy`) until an
 * ingest claims them. Each ingest that changed something, and each removal, is an event on
 * `catalog-source-<name>`, so `sources list` and the read model know the folder, its
 * generator, site URL and versions.
 */
export const SOURCE_STREAM_PREFIX = 'catalog-source-';
export const sourceStreamId = (name: string): string => `${SOURCE_STREAM_PREFIX}${name}`;

/** The documentation that ships with the product. */
export const SHIPPED_SOURCE = 'cogitave-core';
/** The name under which nodes without a source are listed and removed. */
export const LEGACY_SOURCE = 'legacy';

export const SOURCE_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export const sourceNameProblem = (name: string): string | undefined =>
  SOURCE_NAME_PATTERN.test(name)
    ? name === LEGACY_SOURCE
      ? `"${LEGACY_SOURCE}" names the nodes that have no source; pick another name`
      : undefined
    : `a source name is 1–64 lower-case letters, digits, ".", "_" or "-", starting with a letter or digit (got "${name}")`;

const sourceIngested = z.object({
  source: z.string(),
  root: z.string(),
  generator: z.string(),
  baseUrl: z.string().nullable(),
  nodes: z.number().int(),
  pages: z.number().int(),
  versions: z.array(z.string()),
  latest: z.array(z.string()),
  /** corpusFingerprint of the folder, when the ingest computed one (start-up ingests). */
  fingerprint: z.string().optional(),
});

const sourceRemoved = z.object({ source: z.string(), retired: z.number().int() });

export type SourceIngested = z.infer<typeof sourceIngested>;
export type SourceRemoved = z.infer<typeof sourceRemoved>;

export const SOURCE_EVENT_TYPES = ['SourceIngested', 'SourceRemoved'] as const;
export type SourceEvent =
  | { readonly type: 'SourceIngested'; readonly data: SourceIngested }
  | { readonly type: 'SourceRemoved'; readonly data: SourceRemoved };

export const parseSourceEvent = (type: string, data: unknown): SourceEvent => {
  if (type === 'SourceIngested') return { type, data: sourceIngested.parse(data) };
  if (type === 'SourceRemoved') return { type, data: sourceRemoved.parse(data) };
  throw new TypeError(`not a catalog source event: ${type}`);
};

/** Deterministic ids: the same record at the same revision is one event, however often sent. */
export const sourceEventId = (event: SourceEvent, revision: bigint): string => {
  const digest = createHash('sha256').update(canonicalJson(event.data), 'utf8').digest('hex');
  return v5(
    `source/${event.data.source}/${revision}/${event.type}/${digest}`,
    NODE_EVENT_NAMESPACE,
  );
};

export interface SourceRecord {
  readonly name: string;
  /** The last ingest's record; undefined when the source was removed. */
  readonly last: SourceIngested | undefined;
  readonly removed: boolean;
  readonly at: string;
  readonly revision: bigint;
}

/** The latest event of every source stream, by name. */
export const loadSourceRecords = async (
  eventStore: EventStore,
): Promise<Map<string, SourceRecord>> => {
  const records = new Map<string, SourceRecord>();
  let fromPosition;
  for (;;) {
    const page = await eventStore.readAll({
      filter: { streamPrefixes: [SOURCE_STREAM_PREFIX], eventTypes: SOURCE_EVENT_TYPES },
      maxCount: 1000,
      ...(fromPosition ? { fromPosition } : {}),
    });
    for (const recorded of page) {
      const event = parseSourceEvent(recorded.type, recorded.data);
      records.set(event.data.source, {
        name: event.data.source,
        last: event.type === 'SourceIngested' ? event.data : undefined,
        removed: event.type === 'SourceRemoved',
        at: recorded.metadata.at,
        revision: recorded.revision,
      });
    }
    const last = page.at(-1);
    if (!last || page.length < 1000) return records;
    fromPosition = last.position;
  }
};
