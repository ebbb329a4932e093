import type { EventToAppend } from '../event-store/types.js';
import type {
  IntakeRejected,
  RequestProposed,
  RequestWithdrawn,
  StageAdvanceApproved,
  StageAdvanceProposed,
  StageAdvanceRejected,
  StageAdvanced,
} from '../requests/events.js';
import { tokenNameOf, type ActivityLine } from '../runtime/activity.js';

/**
 * Committed request events as activity lines: a proposal (an intake, a stage advance) and a
 * decision (approve, reject, reject an intake, withdraw). Pure: the same events give the same
 * lines. Other events (pull requests opened, stage advanced on its own, bookkeeping, catalog
 * nodes) give none: a decision's line already names the stage it reached, and an ingest is one
 * line for the whole run (ingest.ts), not one per node.
 */

/**
 * How a local decision was taken, by the process that took it: the serving process takes local
 * decisions only through its console; any other process is the CLI.
 */
export type LocalChannel = 'console' | 'cli';

type Appended = Pick<EventToAppend, 'id' | 'type' | 'data' | 'metadata'>;

/** Free-text reasons are cut here: a line stays a line. */
const REASON_CHARS = 200;
const cut = (text: string): string =>
  text.length > REASON_CHARS ? `${text.slice(0, REASON_CHARS - 1)}…` : text;

const who = (event: Appended) => ({
  actor: event.metadata.actor,
  token: tokenNameOf(event.metadata.actor),
});

const proposed = (event: Appended): ActivityLine | undefined => {
  if (event.type === 'RequestProposed') {
    const data = event.data as RequestProposed['data'];
    return {
      activity: 'proposal',
      msg: `request ${data.requestId} proposed`,
      fields: {
        ...who(event),
        request: data.requestId,
        stage: 'proposed',
        product: data.product,
        outcome: 'proposed',
      },
    };
  }
  if (event.type === 'StageAdvanceProposed') {
    const data = event.data as StageAdvanceProposed['data'];
    return {
      activity: 'proposal',
      msg: `request ${data.requestId}: ${data.fromStage} → ${data.toStage} proposed`,
      fields: {
        ...who(event),
        request: data.requestId,
        proposal: data.proposalId,
        from: data.fromStage,
        stage: data.toStage,
        outcome: 'proposed',
      },
    };
  }
  return undefined;
};

const decided = (
  event: Appended,
  batch: readonly Appended[],
  local: LocalChannel,
): ActivityLine | undefined => {
  const channel = (via: string | undefined): string => (via === 'github' ? 'github' : local);
  switch (event.type) {
    case 'StageAdvanceApproved': {
      const data = event.data as StageAdvanceApproved['data'];
      // The approval and the advance it causes are appended together: the line names the stage.
      const advanced = batch.find(
        (other) =>
          other.type === 'StageAdvanced' &&
          (other.data as StageAdvanced['data']).proposalId === data.proposalId,
      )?.data as StageAdvanced['data'] | undefined;
      return {
        activity: 'decision',
        msg: `proposal ${data.proposalId} approved`,
        fields: {
          ...who(event),
          decision: 'approve',
          by: data.approvedBy,
          via: channel(data.via),
          request: data.requestId,
          proposal: data.proposalId,
          stage: advanced?.toStage,
          outcome: 'approved',
        },
      };
    }
    case 'StageAdvanceRejected': {
      const data = event.data as StageAdvanceRejected['data'];
      return {
        activity: 'decision',
        msg: `proposal ${data.proposalId} rejected`,
        fields: {
          ...who(event),
          decision: 'reject',
          by: data.rejectedBy,
          via: channel(data.via),
          request: data.requestId,
          proposal: data.proposalId,
          outcome: 'rejected',
          reason: data.mergeNotCounted?.rule ?? cut(data.reason),
        },
      };
    }
    case 'IntakeRejected': {
      const data = event.data as IntakeRejected['data'];
      return {
        activity: 'decision',
        msg: `request ${data.requestId} rejected at intake`,
        fields: {
          ...who(event),
          decision: 'reject-intake',
          by: data.rejectedBy,
          via: channel(data.via),
          request: data.requestId,
          stage: 'rejected',
          outcome: 'rejected',
          reason: cut(data.reason),
        },
      };
    }
    case 'RequestWithdrawn': {
      const data = event.data as RequestWithdrawn['data'];
      return {
        activity: 'decision',
        msg: `request ${data.requestId} withdrawn`,
        fields: {
          ...who(event),
          decision: 'withdraw',
          by: data.withdrawnBy,
          // No channel: its owner withdrew it (not a maintainer's decision).
          via: data.via === undefined ? 'owner' : channel(data.via),
          request: data.requestId,
          stage: 'withdrawn',
          outcome: 'withdrawn',
          reason: cut(data.reason),
        },
      };
    }
    default:
      return undefined;
  }
};

/** The activity lines of one append's events, in order, each with the id of its event. */
export const activityOfAppend = (
  events: readonly Appended[],
  local: LocalChannel,
): { readonly eventId: string; readonly line: ActivityLine }[] =>
  events.flatMap((event) => {
    const line = proposed(event) ?? decided(event, events, local);
    return line ? [{ eventId: event.id, line }] : [];
  });
