import type pg from 'pg';
import type { Logger } from '../../runtime/logger.js';
import {
  forgetUndecidedMerges,
  recordUndecidedMerge,
  type UndecidedMergeRecord,
} from '../checkpoint.js';
import type { UndecidedMerge } from '../reconcile.js';

/**
 * Proposals' merges seen on GitHub (by their push) whose decision the log does not hold yet,
 * kept in `github_reactor.undecided_merges` until the decision is recorded; past the grace
 * (`decisionGraceMs`) each is reported once as undelivered. The map mirrors the table so
 * `status()` never waits on the database.
 */
export class UndecidedMerges {
  /** Undecided merges by proposal; the overdue ones already logged. */
  private readonly waiting = new Map<string, UndecidedMergeRecord>();
  private readonly reportedOverdue = new Set<string>();

  constructor(
    private readonly deps: {
      readonly pool: pg.Pool;
      readonly name: string;
      readonly repository: string;
      readonly logger: Logger;
      readonly clock: () => Date;
      readonly graceMs: number;
    },
  ) {}

  /** What the table holds, all at once: a status read meanwhile never sees half of it. */
  replaceWith(stored: readonly UndecidedMergeRecord[]): void {
    this.waiting.clear();
    for (const merge of stored) this.waiting.set(merge.proposalId, merge);
  }

  isOverdue(merge: UndecidedMergeRecord): boolean {
    return this.deps.clock().getTime() - Date.parse(merge.seenAt) >= this.deps.graceMs;
  }

  readonly awaitDecision = async (merge: UndecidedMerge): Promise<void> => {
    const kept = await recordUndecidedMerge(this.deps.pool, this.deps.name, merge);
    this.waiting.set(kept.proposalId, kept);
  };

  /** The decision is in the log: the merge no longer waits for anything. */
  async decided(
    of: { readonly proposalId: string } | { readonly requestId: string },
  ): Promise<void> {
    const gone = [...this.waiting.values()].filter((merge) =>
      'proposalId' in of ? merge.proposalId === of.proposalId : merge.requestId === of.requestId,
    );
    if (gone.length === 0) return;
    await forgetUndecidedMerges(this.deps.pool, this.deps.name, of);
    for (const merge of gone) {
      this.waiting.delete(merge.proposalId);
      this.reportedOverdue.delete(merge.proposalId);
    }
  }

  /** Says once, as an error, that a merge waited past the grace for its decision. */
  readonly reportOverdue = (): void => {
    for (const merge of this.waiting.values()) {
      if (this.reportedOverdue.has(merge.proposalId) || !this.isOverdue(merge)) continue;
      this.reportedOverdue.add(merge.proposalId);
      this.deps.logger.error(
        { ...merge, repository: this.deps.repository },
        `pull request #${merge.pullNumber} of ${merge.proposalId} is merged on GitHub, but no decision reached the log since ${merge.seenAt}: its webhook delivery was most likely lost; redeliver it (the repository's Settings → Webhooks → Recent Deliveries), and the merge is applied`,
      );
    }
  };

  /** Oldest first, each with whether it is overdue. */
  list(): (UndecidedMergeRecord & { readonly overdue: boolean })[] {
    return [...this.waiting.values()].map((merge) => ({
      ...merge,
      overdue: this.isOverdue(merge),
    }));
  }
}
