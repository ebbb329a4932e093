import { mergeEvidence, type Evidence } from '../../lifecycle/evidence.js';
import { TERMINAL_STAGES, type Stage } from '../../lifecycle/stages.js';
import type { Position, RecordedEvent } from '../../services/event-store/types.js';
import type {
  AcceptanceCriterion,
  Priority,
  RequestEvent,
  RequestLink,
} from '../../services/requests/events.js';
import { oneLine } from '../one-line.js';
import { resourceUri, type ResourceWrite } from '../resources.js';

/**
 * The read model of one request, folded from its events. Pure: the same events give the same
 * state, which is what makes the table rebuildable and its digest comparable.
 */
export type RequestStatus = 'draft' | 'active' | 'closed';

export interface PendingProposal {
  readonly proposalId: string;
  readonly fromStage: Stage;
  readonly toStage: Stage;
  readonly proposedBy: string;
  readonly proposedAt: string;
  readonly rationale: string;
  readonly evidence: Evidence;
  readonly pullNumber: number | null;
  readonly pullUrl: string | null;
}

export interface IntakeIssue {
  readonly repository: string;
  readonly number: number;
  readonly url: string;
}

export interface RequestState {
  readonly requestId: string;
  readonly uri: string;
  readonly title: string;
  readonly problem: string;
  readonly product: string;
  readonly requester: string;
  readonly priority: Priority;
  readonly acceptanceCriteria: readonly AcceptanceCriterion[];
  readonly links: readonly RequestLink[];
  readonly stage: Stage;
  readonly status: RequestStatus;
  readonly resumeStage: Stage | null;
  readonly pendingProposal: PendingProposal | null;
  /** Evidence of the approved proposals, merged in order (what the DoD is checked against). */
  readonly evidence: Evidence;
  readonly intakeIssue: IntakeIssue | null;
  readonly proposedBy: string;
  readonly closedReason: string | null;
  /** ISO-8601 UTC (event time: metadata `at`). */
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Stream revision of the last applied event. */
  readonly version: number;
  readonly lastPosition: Position;
}

/** The projection's name: its checkpoint, lock and resource-index owner. */
export const REQUESTS_PROJECTION = 'requests';

export const REQUEST_RESOURCE_TYPE = 'request';

export const statusOf = (stage: Stage): RequestStatus =>
  stage === 'proposed' ? 'draft' : TERMINAL_STAGES.includes(stage) ? 'closed' : 'active';

/** What `toISOString` prints for years 0000–9999: such a text is already normalised. */
const CANONICAL_ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/**
 * Normalised so a timestamp read back from a timestamptz column compares equal. Event times
 * are written in the normal form already; checking that is several times cheaper than a
 * round trip through Date, and a replay does it for every event.
 */
export const isoTime = (at: string): string =>
  CANONICAL_ISO.test(at) && !Number.isNaN(Date.parse(at)) ? at : new Date(at).toISOString();

const moveTo = (stage: Stage): Pick<RequestState, 'stage' | 'status'> => ({
  stage,
  status: statusOf(stage),
});

const withoutProposal = (state: RequestState, proposalId: string): PendingProposal | null =>
  state.pendingProposal?.proposalId === proposalId ? null : state.pendingProposal;

/** Where an event sits and when it was decided: all the fold needs besides the event. */
export interface EventPlace {
  readonly revision: RecordedEvent['revision'];
  readonly position: RecordedEvent['position'];
  readonly metadata: { readonly at: string };
}

/**
 * Folds one event into the state. Throws when the event cannot follow the state (an event of
 * a request that was never proposed, a second RequestProposed): the log and the read model
 * disagree, and the projection must stop rather than guess.
 */
export const evolveRequest = (
  state: RequestState | undefined,
  recorded: EventPlace,
  event: RequestEvent,
): RequestState => {
  const at = isoTime(recorded.metadata.at);
  const bookkeeping = {
    updatedAt: at,
    version: Number(recorded.revision),
    lastPosition: recorded.position,
  };
  if (event.type === 'RequestProposed') {
    if (state) throw new Error(`request ${event.data.requestId} was already proposed`);
    const { data } = event;
    return {
      requestId: data.requestId,
      uri: resourceUri(REQUEST_RESOURCE_TYPE, data.requestId),
      title: data.title,
      problem: data.problem,
      product: data.product,
      requester: data.requester,
      priority: data.priority,
      acceptanceCriteria: data.acceptanceCriteria,
      links: data.links,
      ...moveTo('proposed'),
      resumeStage: null,
      pendingProposal: null,
      evidence: {},
      intakeIssue: null,
      proposedBy: data.proposedBy,
      closedReason: null,
      createdAt: at,
      ...bookkeeping,
    };
  }
  if (!state)
    throw new Error(`${event.type} for request ${event.data.requestId}, which was never proposed`);
  // Each case copies the state once (with the bookkeeping): the fold runs per event.
  switch (event.type) {
    case 'IntakeIssueOpened':
      return {
        ...state,
        ...bookkeeping,
        intakeIssue: {
          repository: event.data.repository,
          number: event.data.issueNumber,
          url: event.data.issueUrl,
        },
      };
    case 'IntakeRejected':
      return {
        ...state,
        ...bookkeeping,
        ...moveTo('rejected'),
        resumeStage: null,
        pendingProposal: null,
        closedReason: event.data.reason,
      };
    case 'StageAdvanceProposed':
      return {
        ...state,
        ...bookkeeping,
        pendingProposal: {
          proposalId: event.data.proposalId,
          fromStage: event.data.fromStage,
          toStage: event.data.toStage,
          proposedBy: event.data.proposedBy,
          proposedAt: at,
          rationale: event.data.rationale,
          evidence: event.data.evidence,
          pullNumber: null,
          pullUrl: null,
        },
      };
    case 'ProposalPullRequestOpened':
      // A pull request of a proposal that was meanwhile decided changes nothing but history.
      return state.pendingProposal?.proposalId === event.data.proposalId
        ? {
            ...state,
            ...bookkeeping,
            pendingProposal: {
              ...state.pendingProposal,
              pullNumber: event.data.pullNumber,
              pullUrl: event.data.pullUrl,
            },
          }
        : { ...state, ...bookkeeping };
    case 'StageAdvanceApproved': {
      // As in the decider: approval decides the proposal and its evidence joins the request's.
      const pending = state.pendingProposal;
      return pending?.proposalId === event.data.proposalId
        ? {
            ...state,
            ...bookkeeping,
            pendingProposal: null,
            evidence: mergeEvidence(state.evidence, pending.evidence),
          }
        : { ...state, ...bookkeeping };
    }
    case 'StageAdvanced': {
      const { fromStage, toStage, proposalId } = event.data;
      return {
        ...state,
        ...bookkeeping,
        ...moveTo(toStage),
        // `deferred` parks a request: remember where it resumes; leaving it forgets that.
        resumeStage: toStage === 'deferred' ? fromStage : null,
        pendingProposal: withoutProposal(state, proposalId),
      };
    }
    case 'StageAdvanceRejected':
      return {
        ...state,
        ...bookkeeping,
        pendingProposal: withoutProposal(state, event.data.proposalId),
      };
    case 'RequestWithdrawn':
      return {
        ...state,
        ...bookkeeping,
        ...moveTo('withdrawn'),
        resumeStage: null,
        pendingProposal: null,
        closedReason: event.data.reason,
      };
  }
};

const MAX_SUMMARY = 200;

const clip = (text: string): string => oneLine(text, MAX_SUMMARY);

/** One line for the history view. */
export const summarize = (event: RequestEvent): string => {
  switch (event.type) {
    case 'RequestProposed':
      return clip(
        `Proposed "${event.data.title}" for ${event.data.product} (${event.data.priority})`,
      );
    case 'IntakeIssueOpened':
      return clip(`Intake issue #${event.data.issueNumber} opened in ${event.data.repository}`);
    case 'IntakeRejected':
      return clip(
        `Intake rejected by ${event.data.rejectedBy} via ${event.data.via}: ${event.data.reason}`,
      );
    case 'StageAdvanceProposed':
      return clip(
        `Proposed ${event.data.fromStage} → ${event.data.toStage} (${event.data.proposalId})`,
      );
    case 'ProposalPullRequestOpened':
      return clip(`Pull request #${event.data.pullNumber} opened for ${event.data.proposalId}`);
    case 'StageAdvanceApproved':
      return clip(
        `${event.data.proposalId} approved by ${event.data.approvedBy} via ${event.data.via}`,
      );
    case 'StageAdvanced':
      return clip(
        `Advanced ${event.data.fromStage} → ${event.data.toStage} (${event.data.proposalId})`,
      );
    case 'StageAdvanceRejected':
      return clip(
        `${event.data.proposalId} rejected by ${event.data.rejectedBy} via ${event.data.via}: ${event.data.reason}`,
      );
    case 'RequestWithdrawn':
      return clip(`Withdrawn by ${event.data.withdrawnBy}: ${event.data.reason}`);
  }
};

/**
 * The JSON document of the request resource (`cogitave://request/<id>`): what `resources/read`
 * and `get_request` serve, and what `content_hash` covers. The checkpoint bookkeeping
 * (`lastPosition`) is not content.
 */
export type RequestDocument = Omit<RequestState, 'lastPosition'>;

export const requestDocument = (state: RequestState): RequestDocument => ({
  requestId: state.requestId,
  uri: state.uri,
  title: state.title,
  problem: state.problem,
  product: state.product,
  requester: state.requester,
  priority: state.priority,
  acceptanceCriteria: state.acceptanceCriteria,
  links: state.links,
  stage: state.stage,
  status: state.status,
  resumeStage: state.resumeStage,
  pendingProposal: state.pendingProposal,
  evidence: state.evidence,
  intakeIssue: state.intakeIssue,
  proposedBy: state.proposedBy,
  closedReason: state.closedReason,
  createdAt: state.createdAt,
  updatedAt: state.updatedAt,
  version: state.version,
});

/** The request's entry in the resource index; `created` when it did not exist before. */
export const requestResource = (state: RequestState, created: boolean): ResourceWrite => ({
  uri: state.uri,
  type: REQUEST_RESOURCE_TYPE,
  product: state.product,
  title: state.title,
  document: requestDocument(state),
  lastModified: state.updatedAt,
  position: state.lastPosition,
  created,
});
