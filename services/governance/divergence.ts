import { commandEventId } from '../commands/event-ids.js';
import { eventMetadata, type CommandMetadata } from '../commands/metadata.js';
import { DuplicateEventId } from '../event-store/errors.js';
import type { EventStore } from '../event-store/types.js';

/**
 * Facts about the repository disagreeing with the log, recorded so the reactor reconciles them
 * (and an auditor sees them) instead of anyone waiting on them. On stream
 * `github-divergence-<requestId>`, never on the request's own stream: they change no request.
 *
 * - `merged_after_decision`: a proposal's pull request was merged after the proposal had ended
 *   (closed and reopened, then merged). The request file on the base branch now says a stage
 *   the log never approved → the reactor comments and opens a restore pull request.
 * - `reopened`: a decided proposal's pull request was reopened. Reopening revives nothing →
 *   the reactor comments and closes it again.
 */
export const REPOSITORY_DIVERGED = 'RepositoryDiverged';
export const DIVERGENCE_STREAM_PREFIX = 'github-divergence-';
export const divergenceStreamId = (requestId: string): string =>
  `${DIVERGENCE_STREAM_PREFIX}${requestId}`;

export interface RepositoryDivergedData {
  readonly requestId: string;
  readonly proposalId: string;
  readonly kind: 'merged_after_decision' | 'reopened';
  readonly pullNumber: number;
  /** The GitHub login that merged or reopened. */
  readonly by: string;
  readonly mergeCommitSha: string | null;
  /** What the log says about the proposal, for the comment. */
  readonly reason: string;
}

/** Appends once per command (its event id derives from the command id). */
export const recordDivergence = async (
  eventStore: EventStore,
  data: RepositoryDivergedData,
  meta: CommandMetadata,
): Promise<void> => {
  try {
    await eventStore.append(
      divergenceStreamId(data.requestId),
      [
        {
          id: commandEventId(meta.commandId, 'divergence'),
          type: REPOSITORY_DIVERGED,
          data,
          metadata: eventMetadata(meta),
        },
      ],
      { expectedRevision: 'any' },
    );
  } catch (error) {
    // The same command recorded it before (a redelivery after a crash, with another `at`).
    if (!(error instanceof DuplicateEventId)) throw error;
  }
};
