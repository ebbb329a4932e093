import type { KeyObject } from 'node:crypto';
import type { Queryable } from '../database/queryable.js';
import type { EventStore, Position } from '../event-store/types.js';
import { checkSignature, type Digest, type SignatureCheck } from './digest.js';
import { LogChecker } from './log-checker.js';
import { limitsOf, signatureProblem } from './verify-problems.js';

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
 * The first problem in log order is reported. The checks of one event are log-checker.ts's;
 * the problems' sentences are verify-problems.ts's.
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

/** Earlier digests that can narrow down a failure of `digest`, by the place of their last event. */
const earlierBySequence = (
  earlier: readonly Digest[] | undefined,
  digest: Digest | undefined,
): Map<number, Digest> =>
  new Map(
    (earlier ?? [])
      .filter((d) => d.events > 0 && (!digest || d.events < digest.events))
      .map((d) => [d.events - 1, d] as const),
  );

/** Every event in log order, a page at a time, up to the first problem (null: none). */
const walkLog = async (checker: LogChecker, options: VerifyOptions): Promise<Problem | null> => {
  let fromPosition: Position | undefined;
  for (;;) {
    options.signal?.throwIfAborted();
    const page = await options.eventStore.readAll({
      fromPosition,
      maxCount: options.pageSize ?? PAGE,
    });
    for (const event of page) {
      const problem = await checker.check(event);
      if (problem) return problem;
    }
    options.onProgress?.(checker.sequence);
    const last = page.at(-1);
    if (!last) return null;
    fromPosition = last.position;
  }
};

export const verifyLog = async (options: VerifyOptions): Promise<VerifyReport> => {
  const clock = options.clock ?? (() => new Date());
  const startedAt = clock().toISOString();
  const { digest: given } = options;
  const digest = given?.digest;
  const signature = digest ? checkSignature(digest, options.trustedKey) : undefined;
  const checker = new LogChecker({
    eventStore: options.eventStore,
    seal: options.seal,
    digest,
    earlier: earlierBySequence(options.earlierDigests, digest),
  });
  const problem =
    (await walkLog(checker, options)) ??
    (await checker.atEnd()) ??
    signatureProblem(signature, digest);
  return {
    ok: problem === null,
    events: checker.sequence,
    streams: checker.heads.size,
    sealed: checker.sealed,
    digest:
      given && signature
        ? {
            events: given.digest.events,
            position: given.digest.position,
            root: given.digest.root,
            at: given.digest.at,
            source: given.source,
            signature,
            matched: checker.digestMatched || given.digest.events === 0,
          }
        : null,
    problem,
    limits: limitsOf(digest, signature, options.seal !== undefined),
    startedAt,
    finishedAt: clock().toISOString(),
  };
};
