import type { KeyObject } from 'node:crypto';
import type { Database } from '../database/database.js';
import type { EventStore } from '../event-store/types.js';
import type { Lease, Leadership } from '../database/leadership.js';
import type { Logger } from '../runtime/logger.js';
import { DIGEST_FORMAT, formatDigest, parseDigest, signDigest, type Digest } from './digest.js';
import {
  folderWitness,
  readPublishedDigests,
  type DigestWitness,
  type PublishedDigests,
} from './publication.js';
import { sealLog, type SealedLink } from './seal.js';
import { verifyLog, type VerifyReport } from './verify.js';

/**
 * Tamper evidence as a service: seal the log, make and publish digests, verify the log
 * against one, and say what the last of each was. `cogitave digest|verify`, the serve
 * process's periodic publication and any console call this, never the parts below it.
 */
export interface AuditServiceOptions {
  readonly database: Database;
  readonly eventStore: EventStore;
  readonly logger: Logger;
  /** The folder digests are published to (and `verify` reads the latest from). */
  readonly digestDir: string;
  /** Digests are signed when set. */
  readonly signingKey?: KeyObject | undefined;
  /** Digests must be signed with this key (default: the signing key's public half). */
  readonly trustedKey?: KeyObject | undefined;
  /** Witnesses besides the folder (GitHub mode: the repository). */
  readonly witnesses?: readonly DigestWitness[];
  readonly clock?: () => Date;
}

export type DigestChoice =
  /** The newest digest published to the folder (the default of `cogitave verify`). */
  | { readonly kind: 'latest' }
  | { readonly kind: 'given'; readonly digest: Digest; readonly source: string }
  | { readonly kind: 'none' };

export interface Publication {
  readonly digest: Digest;
  /** Witness names the digest reached. */
  readonly publishedTo: readonly string[];
  /** Witnesses that failed, with the reason. */
  readonly failed: readonly { readonly witness: string; readonly reason: string }[];
}

export interface AuditStatus {
  readonly latestDigest: {
    readonly digest: Digest;
    readonly madeAt: string;
    readonly publishedTo: readonly string[];
  } | null;
  readonly lastVerification: VerifyReport | null;
}

export interface AuditService {
  /** Seals every event final in the log; resolves the newest link. */
  seal(signal?: AbortSignal): Promise<SealedLink | null>;
  /** Seals, then the digest of the log as sealed now (signed when a key is configured). */
  currentDigest(signal?: AbortSignal): Promise<Digest>;
  /**
   * Makes the current digest and publishes it to the folder and every witness, unless the
   * log has not moved since the last publication (then undefined, unless `force`).
   */
  publish(options?: {
    readonly force?: boolean;
    readonly signal?: AbortSignal;
  }): Promise<Publication | undefined>;
  /** Verifies the log (recorded in audit.verifications). */
  verify(
    choice: DigestChoice,
    options?: { readonly onProgress?: (checked: number) => void; readonly signal?: AbortSignal },
  ): Promise<VerifyReport>;
  /** What the folder holds. */
  published(): Promise<PublishedDigests>;
  /** The last published digest and the last verification, for operators and the console. */
  status(): Promise<AuditStatus>;
}

export const digestOfSeal = (
  head: SealedLink | null,
  at: Date,
): Omit<Digest, 'publicKey' | 'signature'> => ({
  format: DIGEST_FORMAT,
  events: head ? Number(head.sequence) + 1 : 0,
  position: head?.position ?? null,
  last: head
    ? { streamId: head.streamId, revision: Number(head.revision), id: head.eventId }
    : null,
  root: head?.logHash ?? null,
  at: at.toISOString(),
});

export const createAuditService = (options: AuditServiceOptions): AuditService => {
  const { database, eventStore } = options;
  const logger = options.logger.child({ component: 'audit' });
  const clock = options.clock ?? (() => new Date());
  const folder = folderWitness(options.digestDir);
  const witnesses = [folder, ...(options.witnesses ?? [])];
  const trustedKey = options.trustedKey ?? options.signingKey;

  const seal = (signal?: AbortSignal) => sealLog({ database, eventStore, signal });

  const currentDigest = async (signal?: AbortSignal): Promise<Digest> => {
    const unsigned = digestOfSeal(await seal(signal), clock());
    return options.signingKey ? signDigest(unsigned, options.signingKey) : unsigned;
  };

  const published = () => readPublishedDigests(options.digestDir);

  return {
    seal,
    currentDigest,
    published,

    publish: async ({ force = false, signal } = {}) => {
      const digest = await currentDigest(signal);
      const { latest } = await published().catch(() => ({ latest: undefined }));
      if (!force && latest && latest.events === digest.events && latest.root === digest.root) {
        return undefined;
      }
      const publishedTo: string[] = [];
      const failed: { witness: string; reason: string }[] = [];
      for (const witness of witnesses) {
        try {
          await witness.publish(digest);
          publishedTo.push(witness.name);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          logger.warn({ witness: witness.name, err: error }, 'digest publication failed');
          failed.push({ witness: witness.name, reason });
        }
      }
      await database.pool.query(
        `INSERT INTO audit.digests (events, made_at, digest, published_to) VALUES ($1, $2, $3, $4)
         ON CONFLICT DO NOTHING`,
        [digest.events, digest.at, formatDigest(digest), publishedTo],
      );
      logger.info(
        { events: digest.events, root: digest.root, publishedTo, failed: failed.length },
        'digest published',
      );
      return { digest, publishedTo, failed };
    },

    verify: async (choice, { onProgress, signal } = {}) => {
      let digest: { digest: Digest; source: string } | undefined;
      let earlier: readonly Digest[] = [];
      if (choice.kind === 'given') {
        digest = { digest: choice.digest, source: choice.source };
      } else if (choice.kind === 'latest') {
        const folderDigests = await published();
        if (folderDigests.latest) {
          digest = { digest: folderDigests.latest, source: `latest published (${folder.name})` };
        }
        earlier = folderDigests.all;
      }
      const report = await verifyLog({
        eventStore,
        seal: database.pool,
        digest,
        earlierDigests: earlier,
        trustedKey,
        onProgress,
        signal,
        clock,
      });
      await database.pool.query(
        'INSERT INTO audit.verifications (finished_at, ok, report) VALUES ($1, $2, $3)',
        [report.finishedAt, report.ok, JSON.stringify(report)],
      );
      return report;
    },

    status: async () => {
      const [digestRows, verificationRows] = await Promise.all([
        database.pool.query<{ digest: string; made_at: Date; published_to: string[] }>(
          'SELECT digest, made_at, published_to FROM audit.digests ORDER BY events DESC, made_at DESC LIMIT 1',
        ),
        database.pool.query<{ report: VerifyReport }>(
          'SELECT report FROM audit.verifications ORDER BY id DESC LIMIT 1',
        ),
      ]);
      const row = digestRows.rows[0];
      return {
        latestDigest: row
          ? {
              digest: parseDigest(row.digest),
              madeAt: row.made_at.toISOString(),
              publishedTo: row.published_to,
            }
          : null,
        lastVerification: verificationRows.rows[0]?.report ?? null,
      };
    },
  };
};

export interface DigestPublisher {
  /** Publishes a last digest (when this process is the publisher), then stops. */
  stop(): Promise<void>;
}

export interface DigestPublisherOptions {
  readonly intervalMs: number;
  readonly logger: Logger;
  /** Several processes: only the holder of this lease publishes (omitted: this one alone). */
  readonly leadership?: Leadership | undefined;
}

/**
 * The serve process's publication: a digest every `intervalMs` (when the log moved) and one at
 * shutdown. A failed publication is logged and tried again at the next tick.
 */
export const startDigestPublisher = (
  service: AuditService,
  options: DigestPublisherOptions,
): DigestPublisher => {
  const controller = new AbortController();
  let running: Promise<unknown> = Promise.resolve();
  let lease: Lease | undefined;
  const leading = (): boolean =>
    options.leadership === undefined || (lease !== undefined && !lease.lost.aborted);
  const tick = (): void => {
    if (!leading()) return;
    running = running
      .then(() => service.publish({ signal: controller.signal }))
      .catch((error: unknown) => {
        if (!controller.signal.aborted) {
          options.logger.warn({ err: error }, 'periodic digest publication failed');
        }
      });
  };
  const acquiring = options.leadership
    ?.acquire(controller.signal)
    .then((acquired) => {
      lease = acquired;
      tick();
    })
    .catch(() => undefined);
  if (!options.leadership) tick();
  const timer = options.intervalMs > 0 ? setInterval(tick, options.intervalMs) : undefined;
  timer?.unref();
  return {
    stop: async () => {
      if (timer) clearInterval(timer);
      await running;
      try {
        if (leading()) await service.publish();
      } catch (error) {
        options.logger.warn({ err: error }, 'final digest publication failed');
      } finally {
        controller.abort();
        await acquiring;
        await lease?.release();
      }
    },
  };
};
