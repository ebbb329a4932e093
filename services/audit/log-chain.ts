import { sha256Hex } from '../event-store/hash-chain.js';

/**
 * The global hash chain over the whole log, in log order. Each stream's chain already covers
 * every event of that stream (`hash`); this one links those hashes across streams, so removing
 * the newest events of a stream, a whole stream, or moving an event between streams changes
 * every later link of the log — and a digest (the link of the last event, published outside
 * the database) commits to all of it.
 *
 *   logHash(0) = sha256(`:0:${hash(0)}`)
 *   logHash(i) = sha256(`${logHash(i - 1)}:${i}:${hash(i)}`)
 *
 * `i` is the event's 0-based sequence number in the log and `hash(i)` its stream-chain hash
 * (hash-chain.ts). Positions do not enter the chain: the same history exported from another
 * store hashes to the same root.
 */
export const logLinkHash = (
  prevLogHash: string | null,
  sequence: bigint,
  eventHash: string,
): string => sha256Hex(`${prevLogHash ?? ''}:${sequence}:${eventHash}`);
