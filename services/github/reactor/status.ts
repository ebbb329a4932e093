import type { ReactorFailure, UndecidedMergeRecord } from '../checkpoint.js';

export type ReactorState =
  'stopped' | 'standby' | 'catching-up' | 'live' | 'retrying' | 'restarting';

export interface GitHubReactorStatus {
  readonly state: ReactorState;
  readonly repository: string;
  /** Position of the last event handled (or skipped), as stored. */
  readonly checkpoint: string | null;
  readonly caughtUp: boolean;
  /** Events handled since start. */
  readonly handled: number;
  /** The event being retried, when state is `retrying`. */
  readonly retrying?: {
    readonly eventId: string;
    readonly position: string;
    readonly type: string;
    readonly attempt: number;
    readonly error: string;
  };
  readonly lastError?: string;
  /** Events that failed for good, newest first (also in github_reactor.failures). */
  readonly failures: readonly ReactorFailure[];
  /**
   * Proposals whose merge GitHub shows (seen by its push) but whose decision the log does not
   * hold, oldest first (also in github_reactor.undecided_merges). `overdue`: waiting longer than
   * `decisionGraceMs`, so the delivery of the merge was most likely lost: redeliver it.
   */
  readonly undecidedMerges: readonly (UndecidedMergeRecord & { readonly overdue: boolean })[];
}

/** The status as the reactor keeps it while running (its merges awaiting a decision aside). */
export type MutableStatus = {
  -readonly [K in keyof GitHubReactorStatus]: GitHubReactorStatus[K];
};

export interface ReactorRetryOptions {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** Attempts of an event whose error is not known to be transient (default 3). */
  readonly unknownErrorAttempts: number;
}
