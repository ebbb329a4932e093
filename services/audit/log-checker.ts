import type { Queryable } from '../database/queryable.js';
import { findChainBreak } from '../event-store/hash-chain.js';
import type { EventStore, RecordedEvent } from '../event-store/types.js';
import type { Digest } from './digest.js';
import { linkCursor, type LinkCursor } from './link-cursor.js';
import { logLinkHash } from './log-chain.js';
import type { SealedLink } from './seal.js';
import type { Problem } from './verify.js';
import {
  digestMismatch,
  fromChainBreak,
  named,
  problemAt,
  shortOfDigest,
  type At,
} from './verify-problems.js';

export interface LogCheckerOptions {
  readonly eventStore: EventStore;
  /** Where the seal lives (the audit schema); omitted: the seal is not compared. */
  readonly seal: Queryable | undefined;
  readonly digest: Digest | undefined;
  /** Earlier digests of the same log, by the 0-based place of their last event. */
  readonly earlier: ReadonlyMap<number, Digest>;
}

/**
 * verify.ts's walk, one event at a time in log order: each is checked against its stream's
 * chain, the seal and the digests, and what the walk has seen so far is kept here.
 */
export class LogChecker {
  /** Each stream's newest link so far. */
  readonly heads = new Map<string, { revision: bigint; hash: string }>();
  /** Events found as they should be; the 0-based place of the next one. */
  sequence = 0;
  /** Of them, how many were compared with the seal. */
  sealed = 0;
  /** The log's first `digest.events` events hash to the digest's root. */
  digestMatched = false;
  /** The newest earlier digest the log still matches: it narrows down where a change lies. */
  lastMatched: Digest | undefined;
  #logHash: string | null = null;
  readonly #links: LinkCursor | undefined;
  readonly #options: LogCheckerOptions;

  constructor(options: LogCheckerOptions) {
    this.#options = options;
    this.#links = options.seal ? linkCursor(options.seal) : undefined;
  }

  /** The problem at `event`, or null (and the walk moves past it) when it is as it should be. */
  async check(event: RecordedEvent): Promise<Problem | null> {
    const problem = await this.#problemAt(event);
    if (problem === null) this.sequence += 1;
    return problem;
  }

  /** After the last event: a sealed event past the log's end, or a log shorter than the digest. */
  async atEnd(): Promise<Problem | null> {
    const { sequence } = this;
    const link = await this.#links?.peek();
    if (link) {
      return problemAt(
        'missing',
        `the event sealed as #${link.sequence}, ${named(link)} id ${link.eventId}, is not in the log: the log ends at #${sequence - 1}`,
        { sequence: Number(link.sequence), link },
      );
    }
    const { digest, eventStore } = this.#options;
    if (!digest || sequence >= digest.events) return null;
    const last = digest.last;
    const [stillThere] = last
      ? await eventStore.readStream(last.streamId, {
          fromRevision: BigInt(last.revision),
          maxCount: 1,
        })
      : [];
    return shortOfDigest(digest, sequence, this.lastMatched, stillThere);
  }

  async #problemAt(event: RecordedEvent): Promise<Problem | null> {
    const { sequence } = this;
    const broken = findChainBreak([event], this.heads.get(event.streamId) ?? null);
    if (broken) return fromChainBreak(broken, event, sequence);
    this.heads.set(event.streamId, { revision: event.revision, hash: event.hash });
    this.#logHash = logLinkHash(this.#logHash, BigInt(sequence), event.hash);
    const sealProblem = await this.#checkSeal(event);
    if (sealProblem) return sealProblem;
    const earlierDigest = this.#options.earlier.get(sequence);
    if (
      earlierDigest &&
      earlierDigest.root === this.#logHash &&
      earlierDigest.position === event.position
    ) {
      this.lastMatched = earlierDigest;
    }
    return this.#checkDigest(event);
  }

  /** The event is the one the seal has at its place (nothing to compare without a seal). */
  async #checkSeal(event: RecordedEvent): Promise<Problem | null> {
    const { sequence } = this;
    const at = { sequence, event };
    const links = this.#links;
    const link = await links?.peek();
    if (!links || !link) return null;
    if (link.sequence !== BigInt(sequence)) {
      return problemAt(
        'seal-edited',
        `the seal has no link #${sequence} (its next is #${link.sequence}): links were removed from audit.log_links`,
        at,
      );
    }
    if (link.position !== event.position) {
      return link.position < event.position
        ? this.#sealedEventAbsent(link)
        : this.#unsealedEventHere(event, link);
    }
    if (link.logHash !== this.#logHash) {
      return problemAt(
        'altered',
        `${named(event)} is not the event sealed at #${sequence}: it was changed (and its stream re-hashed) after it was sealed`,
        at,
      );
    }
    links.advance();
    this.sealed += 1;
    return null;
  }

  /** At the digest's last event: the log up to here is the one the digest was made of. */
  #checkDigest(event: RecordedEvent): Problem | null {
    const { sequence } = this;
    const { digest } = this.#options;
    if (!digest || sequence !== digest.events - 1) return null;
    const at: At = { sequence, event };
    if (digest.position !== event.position) {
      return digestMismatch(
        digest,
        this.lastMatched,
        at,
        `the digest's event #${sequence} is ${digest.last ? `stream ${digest.last.streamId} revision ${digest.last.revision}` : '?'} at position ${digest.position ?? '?'}, the log's is ${named(event)}`,
      );
    }
    if (digest.root !== this.#logHash) {
      return digestMismatch(
        digest,
        this.lastMatched,
        at,
        `the first ${digest.events} events do not hash to the digest's root`,
      );
    }
    this.digestMatched = true;
    return null;
  }

  /** The seal's event #`sequence` is not at its place: moved elsewhere in the log, or gone. */
  async #sealedEventAbsent(link: SealedLink): Promise<Problem> {
    const { sequence } = this;
    const [now] = await this.#options.eventStore.readStream(link.streamId, {
      fromRevision: link.revision,
      maxCount: 1,
    });
    return now?.id === link.eventId
      ? problemAt(
          'reordered',
          `${named(link)}, sealed as #${sequence}, was moved: it is now at position ${now.position}`,
          { sequence, link },
        )
      : problemAt(
          'missing',
          `the event sealed as #${sequence}, ${named(link)} id ${link.eventId}, is not in the log`,
          { sequence, link },
        );
  }

  /** `event` stands where the seal has another: moved here from its sealed place, or added. */
  async #unsealedEventHere(event: RecordedEvent, link: SealedLink): Promise<Problem> {
    const { sequence } = this;
    const at = { sequence, event };
    const { rows } = this.#options.seal
      ? await this.#options.seal.query<{ sequence: string }>(
          'SELECT sequence::text FROM audit.log_links WHERE event_id = $1',
          [event.id],
        )
      : { rows: [] };
    const sealedAs = rows[0]?.sequence;
    return sealedAs === undefined
      ? problemAt(
          'inserted',
          `${named(event)} was added to the log after it was sealed: the seal has ${named(link)} at #${sequence}`,
          at,
        )
      : problemAt(
          'reordered',
          `${named(event)}, sealed as #${sealedAs}, was moved to #${sequence} (where the seal has ${named(link)})`,
          at,
        );
  }
}
