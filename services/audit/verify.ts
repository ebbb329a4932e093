import type { KeyObject } from 'node:crypto';
import type { Queryable } from '../database/queryable.js';
import { findChainBreak, type ChainBreak } from '../event-store/hash-chain.js';
import type { EventStore, Position, RecordedEvent } from '../event-store/types.js';
import { checkSignature, type Digest, type SignatureCheck } from './digest.js';
import { logLinkHash } from './log-chain.js';
import { readLinks, type SealedLink } from './seal.js';

/**
 * `verify`: one pass over the whole log, in order. Each event is checked three ways:
 *
 * 1. its stream's chain (hash-chain.ts): the stored content hashes to the link, the link
 *    follows the previous one, revisions have no gap — an altered or missing event inside a
 *    stream is named here;
 * 2. the seal (seal.ts): the event is the one sealed at its place in the global chain — an
 *    event missing between others, a deleted stream or a moved event is named here, as long
 *    as the seal itself was left alone;
 * 3. the digest (digest.ts), published outside the database: the log up to the digest's
 *    position has as many events and hashes to its root — a deleted newest event is named
 *    from the digest, and a log rewritten together with its seal still shows.
 *
 * The first problem in log order is reported.
 */
export type ProblemKind =
  | 'altered'
  | 'missing'
  | 'reordered'
  | 'inserted'
  | 'seal-edited'
  | 'digest-mismatch'
  | 'signature';

export interface Problem {
  readonly kind: ProblemKind;
  /** A sentence naming the event and what is wrong with it. */
  readonly reason: string;
  /** The 0-based place in the log where the problem shows. */
  readonly sequence: number | null;
  readonly streamId: string | null;
  readonly revision: number | null;
  readonly position: string | null;
  readonly eventId: string | null;
}

export interface DigestCheck {
  readonly events: number;
  readonly position: string | null;
  readonly root: string | null;
  readonly at: string;
  /** Where it came from: a file, "--digest", "latest published". */
  readonly source: string;
  readonly signature: SignatureCheck;
  /** The log's first `events` events hash to `root`: false when they do not, or the log is shorter. */
  readonly matched: boolean;
}

export interface VerifyReport {
  readonly ok: boolean;
  /** Events read (the whole log, or up to the first problem). */
  readonly events: number;
  readonly streams: number;
  /** Of them, how many were compared with the seal. */
  readonly sealed: number;
  readonly digest: DigestCheck | null;
  readonly problem: Problem | null;
  /** What this run could not check, in a sentence (no digest, no seal). */
  readonly limits: readonly string[];
  readonly startedAt: string;
  readonly finishedAt: string;
}

export interface VerifyOptions {
  readonly eventStore: EventStore;
  /** Where the seal lives (the audit schema); omitted: the seal is not compared. */
  readonly seal?: Queryable | undefined;
  readonly digest?: { readonly digest: Digest; readonly source: string } | undefined;
  /** Earlier digests of the same log: when the latest fails, they narrow where. */
  readonly earlierDigests?: readonly Digest[] | undefined;
  /** The key digests must be signed with (configured); omitted: a signature is self-checked. */
  readonly trustedKey?: KeyObject | undefined;
  readonly pageSize?: number;
  readonly onProgress?: (checked: number) => void;
  readonly signal?: AbortSignal;
  readonly clock?: () => Date;
}

const PAGE = 5000;
const LINK_PAGE = 5000;

interface At {
  readonly sequence: number;
  readonly event?: RecordedEvent;
  readonly link?: SealedLink;
}

const problemAt = (kind: ProblemKind, reason: string, at: At): Problem => {
  const source = at.event ?? at.link;
  return {
    kind,
    reason,
    sequence: at.sequence,
    streamId: source?.streamId ?? null,
    revision: source === undefined ? null : Number(source.revision),
    position: source?.position ?? null,
    eventId: at.event?.id ?? at.link?.eventId ?? null,
  };
};

const named = (event: { streamId: string; revision: bigint; position: string }): string =>
  `stream ${event.streamId} revision ${event.revision} (position ${event.position})`;

const fromChainBreak = (broken: ChainBreak, event: RecordedEvent, sequence: number): Problem => {
  const expected = broken.reason.match(/follows (-?\d+)/);
  if (expected?.[1] !== undefined) {
    const next = BigInt(expected[1]) + 1n;
    if (event.revision > next) {
      const gap =
        event.revision - next === 1n
          ? `revision ${next} is`
          : `revisions ${next}–${event.revision - 1n} are`;
      return problemAt(
        'missing',
        `stream ${event.streamId}: ${gap} missing (the stream goes on at revision ${event.revision}, position ${event.position})`,
        { sequence, event },
      );
    }
    return problemAt('reordered', `${named(event)}: ${broken.reason}`, { sequence, event });
  }
  return problemAt('altered', `${named(event)}: ${broken.reason}`, { sequence, event });
};

/** Links in order, a page at a time, the next page read while the current one is used. */
const linkCursor = (db: Queryable) => {
  let page: SealedLink[] = [];
  let index = 0;
  let next: Promise<SealedLink[]> | undefined = readLinks(db, 0n, LINK_PAGE);
  return {
    /** The next link in sequence order (not necessarily `sequence`: the seal may have gaps). */
    peek: async (): Promise<SealedLink | undefined> => {
      if (index < page.length) return page[index];
      if (!next) return undefined;
      page = await next;
      index = 0;
      const last = page.at(-1);
      next =
        last && page.length === LINK_PAGE
          ? readLinks(db, last.sequence + 1n, LINK_PAGE)
          : undefined;
      return page[0];
    },
    advance: (): void => {
      index += 1;
    },
  };
};

export const verifyLog = async (options: VerifyOptions): Promise<VerifyReport> => {
  const clock = options.clock ?? (() => new Date());
  const startedAt = clock().toISOString();
  const { digest: given } = options;
  const digest = given?.digest;
  const signature = digest ? checkSignature(digest, options.trustedKey) : undefined;
  const earlier = new Map(
    (options.earlierDigests ?? [])
      .filter((d) => d.events > 0 && (!digest || d.events < digest.events))
      .map((d) => [d.events - 1, d] as const),
  );
  let lastMatched: Digest | undefined;
  const links = options.seal ? linkCursor(options.seal) : undefined;
  const heads = new Map<string, { revision: bigint; hash: string }>();
  let sequence = 0;
  let sealed = 0;
  let logHash: string | null = null;
  const outcome = { digestMatched: false };
  let problem: Problem | null = null;

  const digestProblem = (at: At, why: string): Problem =>
    problemAt(
      'digest-mismatch',
      `${why}: an event at or before position ${digest?.position ?? '?'} was altered, removed, added or moved, and the seal rewritten to hide it; ${
        lastMatched
          ? `the log still matches the digest of ${lastMatched.events} events made at ${lastMatched.at}, so the change lies between event #${lastMatched.events} and #${digest?.events ?? '?'}`
          : 'no earlier digest narrows it down'
      }`,
      at,
    );

  /** The seal's event #`sequence` is not at its place: moved elsewhere in the log, or gone. */
  const sealedEventAbsent = async (link: SealedLink): Promise<Problem> => {
    const [now] = await options.eventStore.readStream(link.streamId, {
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
  };

  /** `event` stands where the seal has another: moved here from its sealed place, or added. */
  const unsealedEventHere = async (event: RecordedEvent, link: SealedLink): Promise<Problem> => {
    const at = { sequence, event };
    const { rows } = options.seal
      ? await options.seal.query<{ sequence: string }>(
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
  };

  /** The problem at `event` (sequence `sequence`), or null when it is as it should be. */
  const check = async (event: RecordedEvent): Promise<Problem | null> => {
    const at = { sequence, event };
    const broken = findChainBreak([event], heads.get(event.streamId) ?? null);
    if (broken) return fromChainBreak(broken, event, sequence);
    heads.set(event.streamId, { revision: event.revision, hash: event.hash });
    logHash = logLinkHash(logHash, BigInt(sequence), event.hash);
    const link = await links?.peek();
    if (links && link) {
      if (link.sequence !== BigInt(sequence)) {
        return problemAt(
          'seal-edited',
          `the seal has no link #${sequence} (its next is #${link.sequence}): links were removed from audit.log_links`,
          at,
        );
      }
      if (link.position !== event.position) {
        return link.position < event.position
          ? sealedEventAbsent(link)
          : unsealedEventHere(event, link);
      }
      if (link.logHash !== logHash) {
        return problemAt(
          'altered',
          `${named(event)} is not the event sealed at #${sequence}: it was changed (and its stream re-hashed) after it was sealed`,
          at,
        );
      }
      links.advance();
      sealed += 1;
    }
    const earlierDigest = earlier.get(sequence);
    if (
      earlierDigest &&
      earlierDigest.root === logHash &&
      earlierDigest.position === event.position
    ) {
      lastMatched = earlierDigest;
    }
    if (digest && sequence === digest.events - 1) {
      if (digest.position !== event.position) {
        return digestProblem(
          at,
          `the digest's event #${sequence} is ${digest.last ? `stream ${digest.last.streamId} revision ${digest.last.revision}` : '?'} at position ${digest.position ?? '?'}, the log's is ${named(event)}`,
        );
      }
      if (digest.root !== logHash) {
        return digestProblem(
          at,
          `the first ${digest.events} events do not hash to the digest's root`,
        );
      }
      outcome.digestMatched = true;
    }
    return null;
  };

  let fromPosition: Position | undefined;
  walk: for (;;) {
    options.signal?.throwIfAborted();
    const page = await options.eventStore.readAll({
      fromPosition,
      maxCount: options.pageSize ?? PAGE,
    });
    for (const event of page) {
      problem = await check(event);
      if (problem) break walk;
      sequence += 1;
    }
    options.onProgress?.(sequence);
    const last = page.at(-1);
    if (!last) break;
    fromPosition = last.position;
  }

  if (!problem) {
    const link = await links?.peek();
    if (link) {
      problem = problemAt(
        'missing',
        `the event sealed as #${link.sequence}, ${named(link)} id ${link.eventId}, is not in the log: the log ends at #${sequence - 1}`,
        { sequence: Number(link.sequence), link },
      );
    } else if (digest && sequence < digest.events) {
      const last = digest.last;
      const [stillThere] = last
        ? await options.eventStore.readStream(last.streamId, {
            fromRevision: BigInt(last.revision),
            maxCount: 1,
          })
        : [];
      // The digest's newest event is still in the log: what is gone was older, and the seal
      // was rewritten so it cannot say which; only earlier digests narrow it down.
      problem =
        last && stillThere?.id === last.id
          ? {
              kind: 'missing',
              reason: `the log holds ${sequence} events, but the digest made at ${digest.at} covers ${digest.events}: ${digest.events - sequence} of them were removed from before its newest event (stream ${last.streamId} revision ${last.revision}, still in the log at position ${stillThere.position}), and the seal rewritten to hide which; ${
                lastMatched
                  ? `the log still matches the digest of ${lastMatched.events} events made at ${lastMatched.at}, so they lie after event #${lastMatched.events - 1}`
                  : 'no earlier digest narrows it down'
              }`,
              sequence: null,
              streamId: null,
              revision: null,
              position: null,
              eventId: null,
            }
          : {
              kind: 'missing',
              reason: `the log ends after ${sequence} events, but the digest made at ${digest.at} covers ${digest.events}: the newest ${digest.events - sequence} are missing, the last of them stream ${last?.streamId ?? '?'} revision ${last?.revision ?? '?'} (position ${digest.position ?? '?'}, id ${last?.id ?? '?'})`,
              sequence: digest.events - 1,
              streamId: last?.streamId ?? null,
              revision: last?.revision ?? null,
              position: digest.position,
              eventId: last?.id ?? null,
            };
    } else if (
      signature &&
      signature.status !== 'valid' &&
      (signature.pinned || signature.status !== 'unsigned')
    ) {
      problem = {
        kind: 'signature',
        reason:
          signature.status === 'unsigned'
            ? 'the digest is not signed, but a digest key is configured: it may not come from this deployment'
            : signature.status === 'other-key'
              ? 'the digest is signed with another key than the configured one'
              : 'the digest signature does not hold: the digest was altered or forged',
        sequence: null,
        streamId: null,
        revision: null,
        position: digest?.position ?? null,
        eventId: null,
      };
    }
  }

  const limits: string[] = [];
  if (!digest) {
    limits.push(
      'no digest was given or published: removing the newest events or a whole stream together with its seal cannot be detected',
    );
  } else if (signature?.status === 'unsigned') {
    limits.push('the digest is unsigned: it proves nothing about who made it');
  } else if (signature && !signature.pinned) {
    limits.push(
      'no public key is configured (COGITAVE_DIGEST_PUBLIC_KEY): the signature was checked against the key the digest names',
    );
  }
  if (!options.seal) limits.push('the seal was not compared');
  return {
    ok: problem === null,
    events: sequence,
    streams: heads.size,
    sealed,
    digest:
      given && signature
        ? {
            events: given.digest.events,
            position: given.digest.position,
            root: given.digest.root,
            at: given.digest.at,
            source: given.source,
            signature,
            matched: outcome.digestMatched || given.digest.events === 0,
          }
        : null,
    problem,
    limits,
    startedAt,
    finishedAt: clock().toISOString(),
  };
};
