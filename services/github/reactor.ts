import type pg from 'pg';
import { v5 as uuidv5 } from 'uuid';
import type { CommandMetadata } from '../commands/metadata.js';
import type { Leadership } from '../database/leadership.js';
import type { EventFilter, EventStore, RecordedEvent } from '../event-store/types.js';
import { DIVERGENCE_STREAM_PREFIX, REPOSITORY_DIVERGED } from '../governance/divergence.js';
import type { RequestCommandHandlers } from '../requests/commands.js';
import type { Logger } from '../runtime/logger.js';
import type { GitHubOperations } from './operations.js';
import { followLog } from './reactor/follow.js';
import { onRequestProposed, onStageAdvanceProposed } from './reactor/proposals.js';
import type { GitHubReactorStatus, MutableStatus, ReactorRetryOptions } from './reactor/status.js';
import { UndecidedMerges } from './reactor/undecided.js';
import {
  reconcileClosedRequest,
  reconcileCountedMerge,
  reconcileDivergence,
  reconcileUncountedMerge,
  type ReconcileDeps,
} from './reconcile.js';

export type { GitHubReactorStatus, ReactorRetryOptions, ReactorState } from './reactor/status.js';

/**
 * The GitHub reactor: follows the event store from its own checkpoint and turns proposals into
 * GitHub objects, then records them through the request command handlers.
 *
 * - `RequestProposed` → an intake issue (labels, hidden marker) → `recordIntakeIssue`.
 * - `StageAdvanceProposed` → branch `cogitave/<proposalId>` from the base branch, a commit of
 *   `requests/<requestId>.md` at the proposed stage, a draft pull request referencing the
 *   intake issue → `recordProposalPullRequest`.
 * - `StageAdvanceApproved` by a merge → the merged request file is compared with the log and
 *   restored when commits pushed onto the proposal branch changed it (reconcile.ts).
 * - `StageAdvanceRejected` because a merge did not count → a comment on that pull request and
 *   a pull request restoring the request file (reconcile.ts); `RepositoryDiverged` (a merge after
 *   the proposal ended, a reopened pull request, a deleted branch, a hand-edited file, a push onto
 *   a proposal branch, an abandoned restore) → the same restore, a comment, closing, or the next
 *   restore (see divergence.ts).
 * - `IntakeRejected` / `RequestWithdrawn` → a proposal still pending ends with the request
 *   (`StageAdvanceRejected`) and its open pull request is closed with a comment; the intake
 *   issue, if still open, is closed as not planned with a comment.
 * - A proposal's merge seen on GitHub (its push) whose decision the log does not hold yet is kept
 *   in `github_reactor.undecided_merges` until the decision is recorded; past
 *   `decisionGraceMs` it is reported as undelivered (status, `/readyz`, metrics, an error log).
 *
 * Every step is idempotent (look-up before create, deterministic names, command ids derived
 * from the event id), so handling an event again after a retry or a crash changes nothing. The
 * checkpoint is written after each handled event. Transient failures (GitHub down, rate limits,
 * the database restarting, bad credentials being fixed) are retried with backoff on the same
 * event; an event that cannot succeed is logged with its position, recorded in
 * `github_reactor.failures`, listed in `status()`, and skipped.
 *
 * Its parts: proposals made GitHub objects (reactor/proposals.ts), reconciling the repository
 * with the log (reconcile.ts), merges awaiting a decision (reactor/undecided.ts), retries and
 * failures (reactor/retry.ts, reactor/errors.ts), following the log under leadership
 * (reactor/follow.ts).
 */
export const REACTOR_NAME = 'github-reactor';
export const REACTOR_ACTOR = 'system:github-reactor';

/** Namespace of the reactor's command ids: uuidv5(`<event id>:<command>`). */
const COMMAND_NAMESPACE = '1f6b7d0e-4c1a-5b0e-9a51-6f1f3a0c2b7e';

const FILTER: EventFilter = {
  streamPrefixes: ['request-', DIVERGENCE_STREAM_PREFIX],
  eventTypes: [
    'RequestProposed',
    'StageAdvanceProposed',
    'StageAdvanceApproved',
    'StageAdvanceRejected',
    'IntakeRejected',
    'RequestWithdrawn',
    REPOSITORY_DIVERGED,
  ],
};

export interface GitHubReactorOptions {
  readonly eventStore: EventStore;
  /** Where the checkpoint and failures live (the product's Postgres or PGlite). */
  readonly pool: pg.Pool;
  readonly github: GitHubOperations;
  readonly handlers: RequestCommandHandlers;
  readonly logger: Logger;
  /** Server Postgres: one reactor across processes. Omitted: this process is the only one. */
  readonly leadership?: Leadership | undefined;
  readonly retry?: Partial<ReactorRetryOptions>;
  readonly clock?: () => Date;
  /** Checkpoint name (default `github-reactor`). */
  readonly name?: string;
  /**
   * How long a merge seen on GitHub may wait for its decision (the delivery of the merge) before
   * it is reported as undelivered (default 10 minutes).
   */
  readonly decisionGraceMs?: number;
}

export interface GitHubReactor {
  /** Starts following the log in the background; a second call does nothing. */
  start(): void;
  /** Stops after the current step and waits for it. */
  stop(): Promise<void>;
  status(): GitHubReactorStatus;
}

export const createGitHubReactor = (options: GitHubReactorOptions): GitHubReactor => {
  const { eventStore, pool, github, handlers } = options;
  const name = options.name ?? REACTOR_NAME;
  const logger = options.logger.child({ component: name });
  const clock = options.clock ?? (() => new Date());
  const retry: ReactorRetryOptions = {
    initialDelayMs: 1000,
    maxDelayMs: 60_000,
    unknownErrorAttempts: 3,
    ...options.retry,
  };
  const repository = github.repository;
  const decisionGraceMs = options.decisionGraceMs ?? 10 * 60_000;
  const undecided = new UndecidedMerges({
    pool,
    name,
    repository,
    logger,
    clock,
    graceMs: decisionGraceMs,
  });
  const status: MutableStatus = {
    state: 'stopped',
    repository,
    checkpoint: null,
    caughtUp: false,
    handled: 0,
    failures: [],
    undecidedMerges: [],
  };
  let controller: AbortController | undefined;
  let running: Promise<void> | undefined;
  let overdueTimer: NodeJS.Timeout | undefined;

  const meta = (event: RecordedEvent, command: string): CommandMetadata => ({
    commandId: uuidv5(`${event.id}:${command}`, COMMAND_NAMESPACE),
    actor: REACTOR_ACTOR,
    at: clock().toISOString(),
    correlationId: event.metadata.correlationId,
    causationId: event.id,
  });
  const proposals = { eventStore, github, handlers, logger, meta };
  const reconcileDeps: ReconcileDeps = {
    github,
    logger,
    awaitDecision: undecided.awaitDecision,
    readStream: (streamId: string) => eventStore.readStream(streamId),
    rejectProposal: async (input, event) => {
      await handlers.rejectProposal(
        { ...input, decidedBy: REACTOR_ACTOR, via: 'github' },
        meta(event, 'rejectProposal'),
      );
    },
  };

  const handle = async (event: RecordedEvent, signal: AbortSignal): Promise<void> => {
    const { requestId, proposalId } = event.data as { requestId?: string; proposalId?: string };
    switch (event.type) {
      case 'RequestProposed':
        return onRequestProposed(proposals, event, signal);
      case 'StageAdvanceProposed':
        return onStageAdvanceProposed(proposals, event, signal);
      case 'StageAdvanceApproved':
        if (proposalId !== undefined) await undecided.decided({ proposalId });
        return reconcileCountedMerge(reconcileDeps, event, signal);
      case 'StageAdvanceRejected':
        if (proposalId !== undefined) await undecided.decided({ proposalId });
        return reconcileUncountedMerge(reconcileDeps, event, signal);
      case 'IntakeRejected':
      case 'RequestWithdrawn':
        if (requestId !== undefined) await undecided.decided({ requestId });
        return reconcileClosedRequest(reconcileDeps, event);
      case REPOSITORY_DIVERGED:
        // A merge recorded as approving nothing was delivered: it waits for nothing more.
        if ((event.data as { kind?: string }).kind === 'merged_after_decision' && proposalId) {
          await undecided.decided({ proposalId });
        }
        return reconcileDivergence(reconcileDeps, event, signal);
      default:
        return;
    }
  };

  const follow = {
    eventStore,
    filter: FILTER,
    repository,
    undecided,
    leadership: options.leadership,
    handle,
    pool,
    name,
    logger,
    clock,
    retry,
    status,
  };

  return {
    start: () => {
      if (running) return;
      controller = new AbortController();
      running = followLog(follow, controller.signal).finally(() => {
        status.state = 'stopped';
      });
      overdueTimer = setInterval(undecided.reportOverdue, Math.min(decisionGraceMs, 60_000));
      overdueTimer.unref();
    },
    stop: async () => {
      controller?.abort(new Error('GitHub reactor stopping'));
      clearInterval(overdueTimer);
      overdueTimer = undefined;
      await running;
      running = undefined;
      controller = undefined;
      status.state = 'stopped';
      status.retrying = undefined;
    },
    status: () => ({
      ...status,
      failures: [...status.failures],
      undecidedMerges: undecided.list(),
    }),
  };
};
