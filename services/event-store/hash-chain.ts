import { hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import type { EventMetadata, RecordedEvent } from './types.js';

/**
 * The per-stream hash chain. Each event is stored as its canonical content, the RFC 8785 JSON
 * text of `{ id, streamId, type, data, metadata }`, and its `hash` covers the previous event's
 * hash, its own revision and the sha256 of those exact bytes (UTF-8) — so changing one byte of
 * any stored event, reordering events or dropping one breaks every later link.
 *
 *   content     = JCS({ id, streamId, type, data, metadata })
 *   contentHash = sha256(content)
 *   hash        = sha256(`${prevHash ?? ''}:${revision}:${contentHash}`)
 *
 * The store keeps `content` as it was hashed, so checking a link hashes what is stored: no
 * re-encoding, and nothing a database's JSON type might normalise. The Postgres adapter
 * hashes the content itself inside its append function, so chains stay continuous when many
 * writers append to one stream.
 *
 * `sha256Hex` hashes a text's UTF-8 bytes, or bytes already encoded.
 */
export const sha256Hex = (text: string | Buffer): string => hash('sha256', text, 'hex');

export interface HashableEvent {
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata: EventMetadata;
}

export { canonicalJson } from './canonical-json.js';

/** The canonical content of an event: what the store keeps and the chain hashes. */
export const eventContent = (streamId: string, event: HashableEvent): string =>
  canonicalJson({
    id: event.id,
    streamId,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
  });

export const contentHash = (streamId: string, event: HashableEvent): string =>
  sha256Hex(eventContent(streamId, event));

export const chainHash = (prevHash: string | null, revision: bigint, content: string): string =>
  sha256Hex(`${prevHash ?? ''}:${revision}:${content}`);

/** What a stored content must name: the event it is stored as. */
interface ContentIdentity {
  readonly id?: unknown;
  readonly streamId?: unknown;
  readonly type?: unknown;
}

/**
 * Why a stored content does not belong to the event it is stored as (its id, stream or type
 * differs from the columns readers filter on), or null when it does. Such an event could hide
 * from a filtered reader while its hash still holds.
 */
export const contentMismatch = (event: RecordedEvent): string | null => {
  let parsed: ContentIdentity;
  try {
    parsed = JSON.parse(event.content) as ContentIdentity;
  } catch {
    return 'the stored content is not JSON';
  }
  if (parsed.id !== event.id) return 'the stored content names another event id';
  if (parsed.streamId !== event.streamId) return 'the stored content names another stream';
  if (parsed.type !== event.type) return 'the stored content names another event type';
  return null;
};

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
    const recomputed = chainHash(prevHash, event.revision, sha256Hex(event.content));
    if (recomputed !== event.hash) {
      return { ...at, reason: 'hash does not match the event content (the event was altered)' };
    }
    const mismatch = contentMismatch(event);
    if (mismatch !== null) return { ...at, reason: `${mismatch} (the event was altered)` };
    prevHash = event.hash;
    expectedRevision += 1n;
  }
  return null;
};
