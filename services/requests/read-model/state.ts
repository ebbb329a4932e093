import type { RequestEvent } from '../events.js';
import { pendingProposalOf, type ProposalRecord, type RequestRecord } from '../fold.js';
import { oneLine } from '../../../projections/one-line.js';
import { resourceUri, type ResourceWrite } from '../../../projections/resources.js';

export { evolveRequest, isoTime, statusOf, type EventPlace, type RequestStatus } from '../fold.js';

/**
 * The read model of one request: the request's record (services/requests/fold.ts, the one
 * fold of its events), stored one row per request. Pure: the same events give the same
 * record, which is what makes the table rebuildable and its digest comparable.
 */
export type RequestState = RequestRecord;

/** The projection's name: its checkpoint, lock and resource-index owner. */
export const REQUESTS_PROJECTION = 'requests';

export const REQUEST_RESOURCE_TYPE = 'request';

export const requestUri = (requestId: string): string =>
  resourceUri(REQUEST_RESOURCE_TYPE, requestId);

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

/** The open proposal as the request's document shows it; null when none is open. */
export const pendingDocument = (state: RequestState) => {
  const proposal = pendingProposalOf(state);
  return proposal ? proposalDocument(proposal) : null;
};

/** A proposal as the document shows it: without its record keeping, its pull request flat. */
const proposalDocument = ({
  revision: _revision,
  outcome: _outcome,
  decision: _decision,
  pullRequest,
  ...shown
}: ProposalRecord) => ({
  ...shown,
  pullNumber: pullRequest?.pullNumber ?? null,
  pullUrl: pullRequest?.pullUrl ?? null,
});

/**
 * The JSON document of the request resource (`cogitave://request/<id>`): what `resources/read`
 * and `get_request` serve, and what `content_hash` covers. The proposals' history and the
 * checkpoint bookkeeping (`lastPosition`) are not content.
 */
export const requestDocument = (state: RequestState) => ({
  requestId: state.requestId,
  uri: requestUri(state.requestId),
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
  pendingProposal: pendingDocument(state),
  evidence: state.evidence,
  intakeIssue: state.intakeIssue,
  proposedBy: state.proposedBy,
  closedReason: state.closedReason,
  createdAt: state.createdAt,
  updatedAt: state.updatedAt,
  version: state.version,
});

export type RequestDocument = ReturnType<typeof requestDocument>;

/** The request's entry in the resource index; `created` when it did not exist before. */
export const requestResource = (state: RequestState, created: boolean): ResourceWrite => ({
  uri: requestUri(state.requestId),
  type: REQUEST_RESOURCE_TYPE,
  product: state.product,
  title: state.title,
  document: requestDocument(state),
  lastModified: state.updatedAt,
  position: state.lastPosition,
  created,
});
