import type { ChainBreak } from '../event-store/hash-chain.js';
import type { RecordedEvent } from '../event-store/types.js';
import type { Digest, SignatureCheck } from './digest.js';
import type { SealedLink } from './seal.js';
import type { Problem, ProblemKind } from './verify.js';

/** Where in the log a problem shows: its place, and the event or sealed link found there. */
export interface At {
  readonly sequence: number;
  readonly event?: RecordedEvent;
  readonly link?: SealedLink;
}

export const problemAt = (kind: ProblemKind, reason: string, at: At): Problem => {
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

export const named = (event: { streamId: string; revision: bigint; position: string }): string =>
  `stream ${event.streamId} revision ${event.revision} (position ${event.position})`;

export const fromChainBreak = (
  broken: ChainBreak,
  event: RecordedEvent,
  sequence: number,
): Problem => {
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

/** The log disagrees with the digest at `at`, though the seal agreed: both were rewritten. */
export const digestMismatch = (
  digest: Digest,
  lastMatched: Digest | undefined,
  at: At,
  why: string,
): Problem =>
  problemAt(
    'digest-mismatch',
    `${why}: an event at or before position ${digest.position ?? '?'} was altered, removed, added or moved, and the seal rewritten to hide it; ${
      lastMatched
        ? `the log still matches the digest of ${lastMatched.events} events made at ${lastMatched.at}, so the change lies between event #${lastMatched.events} and #${digest.events}`
        : 'no earlier digest narrows it down'
    }`,
    at,
  );

/**
 * The log ends after `events` events, before the digest's. When the digest's newest event is
 * still in the log (`stillThere`), what is gone was older, and the seal was rewritten so it
 * cannot say which; only earlier digests narrow it down.
 */
export const shortOfDigest = (
  digest: Digest,
  events: number,
  lastMatched: Digest | undefined,
  stillThere: RecordedEvent | undefined,
): Problem => {
  const last = digest.last;
  return last && stillThere?.id === last.id
    ? {
        kind: 'missing',
        reason: `the log holds ${events} events, but the digest made at ${digest.at} covers ${digest.events}: ${digest.events - events} of them were removed from before its newest event (stream ${last.streamId} revision ${last.revision}, still in the log at position ${stillThere.position}), and the seal rewritten to hide which; ${
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
        reason: `the log ends after ${events} events, but the digest made at ${digest.at} covers ${digest.events}: the newest ${digest.events - events} are missing, the last of them stream ${last?.streamId ?? '?'} revision ${last?.revision ?? '?'} (position ${digest.position ?? '?'}, id ${last?.id ?? '?'})`,
        sequence: digest.events - 1,
        streamId: last?.streamId ?? null,
        revision: last?.revision ?? null,
        position: digest.position,
        eventId: last?.id ?? null,
      };
};

/**
 * A signature that does not hold is a problem; so is a missing one when a key is configured
 * (an unsigned digest with no key configured is only a limit of the run).
 */
export const signatureProblem = (
  signature: SignatureCheck | undefined,
  digest: Digest | undefined,
): Problem | null =>
  signature && signature.status !== 'valid' && (signature.pinned || signature.status !== 'unsigned')
    ? {
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
      }
    : null;

/** What a run with this digest and signature (and seal or not) could not check. */
export const limitsOf = (
  digest: Digest | undefined,
  signature: SignatureCheck | undefined,
  sealCompared: boolean,
): string[] => {
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
  if (!sealCompared) limits.push('the seal was not compared');
  return limits;
};
