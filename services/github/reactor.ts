import type pg from 'pg';
import { v5 as uuidv5 } from 'uuid';
import { isTransientDatabaseError } from '../database/transient.js';
import type { EventFilter, EventStore, Position, RecordedEvent } from '../event-store/types.js';
import type { CommandMetadata } from '../commands/metadata.js';
import { DIVERGENCE_STREAM_PREFIX, REPOSITORY_DIVERGED } from '../governance/divergence.js';
import type { RequestCommandHandlers } from '../requests/commands.js';
import type { RequestProposed, StageAdvanceProposed } from '../requests/events.js';
import { isCogitaveError } from '../runtime/errors.js';
import type { Logger } from '../runtime/logger.js';
import {
  forgetUndecidedMerges,
  loadCheckpoint,
  loadFailures,
  loadUndecidedMerges,
  recordFailure,
  recordUndecidedMerge,
  saveCheckpoint,
  type ReactorFailure,
  type UndecidedMergeRecord,
} from './checkpoint.js';
import {
  backoffMs,
  describeGitHubError,
  githubStatus,
  isAlreadyExists,
  isTransientGitHubError,
  sleep,
} from './client.js';
import type { Leadership, Lease } from '../database/leadership.js';
import { proposalBranch, requestFilePath } from './markers.js';
import type { GitHubOperations } from './operations.js';
import {
  reconcileClosedRequest,
  reconcileCountedMerge,
  reconcileDivergence,
  reconcileUncountedMerge,
  type UndecidedMerge,
} from './reconcile.js';
import { findProposal } from '../requests/fold.js';
import {
  foldRequestStream,
  intakeIssueTitle,
  isAbandoned,
  proposalPullTitle,
  renderIntakeIssueBody,
  renderProposalPullBody,
  renderRequestFile,
} from './render.js';

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

export interface ReactorRetryOptions {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  /** Attempts of an event whose error is not known to be transient (default 3). */
  readonly unknownErrorAttempts: number;
}

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

type Outcome = 'handled' | 'failed';

/** An error the reactor must not retry: the event is recorded as failed and skipped. */
class PermanentReactorError extends Error {}

type Classification = 'transient' | 'permanent' | 'unknown';

const classify = (error: unknown): Classification => {
  if (error instanceof PermanentReactorError) return 'permanent';
  if (isCogitaveError(error)) {
    // The store or a concurrent writer: the same step will succeed later.
    if (error.code === 'UNAVAILABLE' || error.code === 'WRONG_EXPECTED_VERSION') return 'transient';
    return 'permanent';
  }
  if (isTransientDatabaseError(error)) return 'transient';
  if (isTransientGitHubError(error)) return 'transient';
  const status = githubStatus(error);
  if (status === undefined) return 'unknown';
  // Credentials, permissions, a missing repository or base branch are repository-wide:
  // skipping would skip every event. Block and retry until an operator fixes it.
  if (status === 401 || status === 403 || status === 404) return 'transient';
  // "Already exists" that the look-up did not see yet, or a branch that moved: looking up
  // again on the next attempt resolves it.
  if (status === 409 || isAlreadyExists(error)) return 'transient';
  return status === 422 ? 'permanent' : 'unknown';
};

const describeError = (error: unknown): string =>
  githubStatus(error) !== undefined || !(error instanceof Error)
    ? describeGitHubError(error)
    : error.message;

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

  let status: {
    -readonly [K in keyof GitHubReactorStatus]: GitHubReactorStatus[K];
  } = {
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
  const decisionGraceMs = options.decisionGraceMs ?? 10 * 60_000;
  /** Undecided merges by proposal; the overdue ones already logged. */
  const undecided = new Map<string, UndecidedMergeRecord>();
  const reportedOverdue = new Set<string>();
  let overdueTimer: NodeJS.Timeout | undefined;

  const isOverdue = (merge: UndecidedMergeRecord): boolean =>
    clock().getTime() - Date.parse(merge.seenAt) >= decisionGraceMs;

  const awaitDecision = async (merge: UndecidedMerge): Promise<void> => {
    const kept = await recordUndecidedMerge(pool, name, merge);
    undecided.set(kept.proposalId, kept);
  };

  /** The decision is in the log: the merge no longer waits for anything. */
  const decided = async (
    of: { readonly proposalId: string } | { readonly requestId: string },
  ): Promise<void> => {
    const gone = [...undecided.values()].filter((merge) =>
      'proposalId' in of ? merge.proposalId === of.proposalId : merge.requestId === of.requestId,
    );
    if (gone.length === 0) return;
    await forgetUndecidedMerges(pool, name, of);
    for (const merge of gone) {
      undecided.delete(merge.proposalId);
      reportedOverdue.delete(merge.proposalId);
    }
  };

  /** Says once, as an error, that a merge waited past the grace for its decision. */
  const reportOverdue = (): void => {
    for (const merge of undecided.values()) {
      if (reportedOverdue.has(merge.proposalId) || !isOverdue(merge)) continue;
      reportedOverdue.add(merge.proposalId);
      logger.error(
        { ...merge, repository },
        `pull request #${merge.pullNumber} of ${merge.proposalId} is merged on GitHub, but no decision reached the log since ${merge.seenAt}: its webhook delivery was most likely lost; redeliver it (the repository's Settings → Webhooks → Recent Deliveries), and the merge is applied`,
      );
    }
  };

  const meta = (event: RecordedEvent, command: string): CommandMetadata => ({
    commandId: uuidv5(`${event.id}:${command}`, COMMAND_NAMESPACE),
    actor: REACTOR_ACTOR,
    at: clock().toISOString(),
    correlationId: event.metadata.correlationId,
    causationId: event.id,
  });

  const onRequestProposed = async (event: RecordedEvent, signal: AbortSignal): Promise<void> => {
    const { requestId } = (event as RecordedEvent<string, RequestProposed['data']>).data;
    const view = foldRequestStream(await eventStore.readStream(event.streamId));
    if (!view) throw new PermanentReactorError(`stream ${event.streamId} has no RequestProposed`);
    if (view.intakeIssue) return; // recorded already: a replay from an older checkpoint
    const record = async (issue: { number: number; url: string }): Promise<void> => {
      try {
        await handlers.recordIntakeIssue(
          { requestId, repository, issueNumber: issue.number, issueUrl: issue.url },
          meta(event, 'recordIntakeIssue'),
        );
      } catch (error) {
        // Rejected (issue closed as not planned, applied by webhook) or withdrawn before we
        // recorded the issue: the decision stands and the refusal is expected.
        if (classify(error) !== 'permanent') throw error;
        const after = foldRequestStream(await eventStore.readStream(event.streamId));
        if (after && !isAbandoned(after)) throw error;
        logger.info(
          { requestId, issue: issue.number, reason: describeError(error) },
          'request closed before its intake issue was recorded',
        );
      }
    };
    if (isAbandoned(view)) {
      // Closed before we got here: record an issue that exists, never open one now.
      const found = await github.findIntakeIssue(requestId);
      if (found) await record(found);
      else logger.info({ requestId }, 'request no longer active; no intake issue opened');
      return;
    }
    const issue = await github.ensureIntakeIssue(
      { requestId, title: intakeIssueTitle(view), body: renderIntakeIssueBody(view) },
      signal,
    );
    logger.info(
      { requestId, issue: issue.number, created: issue.created, position: event.position },
      issue.created ? 'intake issue opened' : 'intake issue found',
    );
    await record(issue);
  };

  const onStageAdvanceProposed = async (
    event: RecordedEvent,
    signal: AbortSignal,
  ): Promise<void> => {
    const proposal = (event as RecordedEvent<string, StageAdvanceProposed['data']>).data;
    const { requestId, proposalId } = proposal;
    const stream = await eventStore.readStream(event.streamId);
    const now = foldRequestStream(stream);
    const then = foldRequestStream(stream, event.revision);
    const known = now && findProposal(now, proposalId);
    if (!now || !then || !known) {
      throw new PermanentReactorError(`proposal ${proposalId} is not in ${event.streamId}`);
    }
    if (known.pullRequest) return; // recorded already
    const branch = proposalBranch(proposalId);
    const record = async (pull: {
      number: number;
      url: string;
      headSha: string;
    }): Promise<void> => {
      try {
        await handlers.recordProposalPullRequest(
          {
            requestId,
            proposalId,
            repository,
            branch,
            pullNumber: pull.number,
            pullUrl: pull.url,
            // Kept so a push to the branch by anyone else is told apart from this commit.
            headSha: pull.headSha,
          },
          meta(event, 'recordProposalPullRequest'),
        );
      } catch (error) {
        // A merge or close can be applied (by webhook, resolved by branch name) before we get
        // to record the pull request; the decision stands and the refusal is expected.
        if (classify(error) !== 'permanent') throw error;
        const after = foldRequestStream(await eventStore.readStream(event.streamId));
        const decided = (after && findProposal(after, proposalId))?.outcome !== 'pending';
        if (!decided && after && !isAbandoned(after)) throw error;
        logger.info(
          { requestId, proposalId, pull: pull.number, reason: describeError(error) },
          'proposal decided before its pull request was recorded',
        );
      }
    };
    if (known.outcome !== 'pending' || isAbandoned(now)) {
      // Decided (or the request ended) before we got here: record a pull request that exists
      // (a merge can arrive before we recorded it), never open one now.
      const pull = await github.findPullRequest(branch);
      if (pull) await record(pull);
      else
        logger.info(
          { requestId, proposalId },
          'proposal no longer pending; no pull request opened',
        );
      return;
    }
    const issueNumber =
      now.intakeIssue?.number ?? (await github.findIntakeIssue(requestId))?.number;
    const pull = await github.ensureProposalPullRequest(
      {
        branch,
        path: requestFilePath(requestId),
        content: renderRequestFile(then, proposal),
        commitMessage: `${requestId}: propose ${proposal.fromStage} → ${proposal.toStage} (${proposalId})`,
        title: proposalPullTitle(then, proposal),
        body: renderProposalPullBody(then, proposal, issueNumber),
      },
      signal,
    );
    logger.info(
      { requestId, proposalId, pull: pull.number, created: pull.created, position: event.position },
      pull.created ? 'proposal pull request opened' : 'proposal pull request found',
    );
    await record(pull);
  };

  const reconcileDeps = {
    github,
    logger,
    awaitDecision,
    readStream: (streamId: string) => eventStore.readStream(streamId),
    rejectProposal: async (
      input: { requestId: string; proposalId: string; reason: string },
      event: RecordedEvent,
    ): Promise<void> => {
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
        return onRequestProposed(event, signal);
      case 'StageAdvanceProposed':
        return onStageAdvanceProposed(event, signal);
      case 'StageAdvanceApproved':
        if (proposalId !== undefined) await decided({ proposalId });
        return reconcileCountedMerge(reconcileDeps, event, signal);
      case 'StageAdvanceRejected':
        if (proposalId !== undefined) await decided({ proposalId });
        return reconcileUncountedMerge(reconcileDeps, event, signal);
      case 'IntakeRejected':
      case 'RequestWithdrawn':
        if (requestId !== undefined) await decided({ requestId });
        return reconcileClosedRequest(reconcileDeps, event);
      case REPOSITORY_DIVERGED:
        // A merge recorded as approving nothing was delivered: it waits for nothing more.
        if ((event.data as { kind?: string }).kind === 'merged_after_decision' && proposalId) {
          await decided({ proposalId });
        }
        return reconcileDivergence(reconcileDeps, event, signal);
      default:
        return;
    }
  };

  const handleWithRetry = async (event: RecordedEvent, signal: AbortSignal): Promise<Outcome> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await handle(event, signal);
        if (status.state === 'retrying') status.state = status.caughtUp ? 'live' : 'catching-up';
        status.retrying = undefined;
        return 'handled';
      } catch (error) {
        signal.throwIfAborted();
        const kind = classify(error);
        const message = describeError(error);
        if (kind === 'permanent' || (kind === 'unknown' && attempt >= retry.unknownErrorAttempts)) {
          const failure = {
            eventId: event.id,
            position: event.position,
            streamId: event.streamId,
            eventType: event.type,
            error: message,
          };
          logger.error({ ...failure, attempt }, 'event failed for good; skipped');
          await recordFailure(pool, name, failure).catch((dbError: unknown) => {
            logger.warn({ err: dbError }, 'could not record the failure');
          });
          status.failures = [
            { ...failure, failedAt: clock().toISOString() },
            ...status.failures,
          ].slice(0, 50);
          status.retrying = undefined;
          if (status.state === 'retrying') status.state = status.caughtUp ? 'live' : 'catching-up';
          return 'failed';
        }
        const waitMs = backoffMs(attempt, retry);
        status.state = 'retrying';
        status.lastError = message;
        status.retrying = {
          eventId: event.id,
          position: event.position,
          type: event.type,
          attempt,
          error: message,
        };
        logger.warn(
          {
            eventId: event.id,
            position: event.position,
            type: event.type,
            attempt,
            waitMs,
            error: message,
          },
          'event failed; retrying',
        );
        await sleep(waitMs, signal);
      }
    }
  };

  const persistCheckpoint = async (position: Position, signal: AbortSignal): Promise<void> => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await saveCheckpoint(pool, name, position);
        return;
      } catch (error) {
        signal.throwIfAborted();
        if (!isTransientDatabaseError(error)) throw error;
        await sleep(backoffMs(attempt, retry), signal);
      }
    }
  };

  const consume = async (signal: AbortSignal): Promise<void> => {
    const checkpoint = await loadCheckpoint(pool, name);
    const failures = await loadFailures(pool, name);
    const waiting = await loadUndecidedMerges(pool, name);
    // All at once: a status read meanwhile shows the stored state whole, never half of it.
    undecided.clear();
    for (const merge of waiting) undecided.set(merge.proposalId, merge);
    status.failures = failures;
    status.checkpoint = checkpoint ?? null;
    status.caughtUp = false;
    status.state = 'catching-up';
    logger.info(
      { checkpoint: checkpoint ?? 'start of the log', repository },
      'GitHub reactor following the log',
    );
    const subscription = eventStore.subscribeToAll({
      fromPosition: checkpoint,
      filter: FILTER,
      signal,
      onCaughtUp: () => {
        status.caughtUp = true;
        if (status.state === 'catching-up') status.state = 'live';
      },
    });
    try {
      for await (const event of subscription) {
        await handleWithRetry(event, signal);
        await persistCheckpoint(event.position, signal);
        status.checkpoint = event.position;
        status.handled += 1;
      }
    } finally {
      await subscription.close();
    }
  };

  const run = async (signal: AbortSignal): Promise<void> => {
    // A function, not a property read: TypeScript would keep `signal.aborted` narrowed to
    // false across the awaits below.
    const stopping = (): boolean => signal.aborted;
    let failuresInARow = 0;
    while (!stopping()) {
      let lease: Lease | undefined;
      try {
        if (options.leadership) {
          status.state = 'standby';
          lease = await options.leadership.acquire(signal);
        }
        await consume(lease ? AbortSignal.any([signal, lease.lost]) : signal);
        failuresInARow = 0;
      } catch (error) {
        if (stopping()) break;
        if (lease?.lost.aborted) {
          logger.warn('lost the reactor lock; standing by');
          continue;
        }
        failuresInARow += 1;
        status.state = 'restarting';
        status.lastError = describeError(error);
        const waitMs = backoffMs(failuresInARow, retry);
        logger.error(
          // GitHub errors carry request and response objects: log their status and message only.
          {
            ...(githubStatus(error) === undefined
              ? { err: error }
              : { error: describeError(error) }),
            waitMs,
          },
          'GitHub reactor stopped; restarting from its checkpoint',
        );
        await sleep(waitMs, signal).catch(() => undefined);
      } finally {
        await lease?.release();
      }
    }
  };

  return {
    start: () => {
      if (running) return;
      controller = new AbortController();
      const signal = controller.signal;
      running = run(signal).finally(() => {
        status.state = 'stopped';
      });
      overdueTimer = setInterval(reportOverdue, Math.min(decisionGraceMs, 60_000));
      overdueTimer.unref();
    },
    stop: async () => {
      controller?.abort(new Error('GitHub reactor stopping'));
      clearInterval(overdueTimer);
      overdueTimer = undefined;
      await running;
      running = undefined;
      controller = undefined;
      status = { ...status, state: 'stopped', retrying: undefined };
    },
    status: () => ({
      ...status,
      failures: [...status.failures],
      undecidedMerges: [...undecided.values()].map((merge) => ({
        ...merge,
        overdue: isOverdue(merge),
      })),
    }),
  };
};
