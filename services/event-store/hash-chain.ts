import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import type { EventMetadata, RecordedEvent } from './types.js';

/**
 * The per-stream hash chain. Each event's `hash` covers the previous event's hash, its own
 * revision and the sha256 of its canonical JSON (RFC 8785) — so changing one byte of any
 * stored event, reordering events or dropping one breaks every later link.
 *
 *   contentHash = sha256(JCS({ id, streamId, type, data, metadata }))
 *   hash        = sha256(`${prevHash ?? ''}:${revision}:${contentHash}`)
 *
 * The Postgres adapter computes `hash` inside its append function with the same formula, so
 * chains stay continuous when many writers append to one stream.
 */
const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export interface HashableEvent {
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
}

export const canonicalJson = (value: unknown): string => {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value has no JSON representation');
  return text;
};

export const contentHash = (streamId: string, event: HashableEvent): string =>
  sha256Hex(
    canonicalJson({
      id: event.id,
      streamId,
      type: event.type,
      data: event.data,
      metadata: event.metadata,
    }),
  );

export const chainHash = (prevHash: string | null, revision: bigint, content: string): string =>
  sha256Hex(`${prevHash ?? ''}:${revision}:${content}`);

export type ChainBreak = {
  readonly streamId: string;
  readonly revision: bigint;
  readonly position: RecordedEvent['position'];
  readonly reason: string;
};

/**
 * Checks one stream's events, read forwards from revision 0 (or continuing from `previous`).
 * Returns the first broken link, or null when every link holds.
 */
export const findChainBreak = (
  events: readonly RecordedEvent[],
  previous: { revision: bigint; hash: string } | null = null,
): ChainBreak | null => {
  let expectedRevision = previous ? previous.revision + 1n : 0n;
  let prevHash = previous ? previous.hash : null;
  for (const event of events) {
    const at = { streamId: event.streamId, revision: event.revision, position: event.position };
    if (event.revision !== expectedRevision) {
      return {
        ...at,
        reason: `revision ${event.revision} follows ${expectedRevision - 1n}: a gap or reorder`,
      };
    }
    if (event.prevHash !== prevHash) {
      return { ...at, reason: 'prevHash does not match the hash of the previous event' };
    }
    const recomputed = chainHash(prevHash, event.revision, contentHash(event.streamId, event));
    if (recomputed !== event.hash) {
      return { ...at, reason: 'hash does not match the event content (the event was altered)' };
    }
    prevHash = event.hash;
    expectedRevision += 1n;
  }
  return null;
};
