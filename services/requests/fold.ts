import { mergeEvidence, type Evidence } from '../../lifecycle/evidence.js';
import { TERMINAL_STAGES, type Stage } from '../../lifecycle/stages.js';
import { parseRequestEvent } from './parse.js';
import type { Position, RecordedEvent } from '../event-store/types.js';
import type { RequestEvent, RequestProposed } from './events.js';

/**
 * The one fold of a request's events, and the one shape it folds into. The decider decides on
 * it, the requests projection stores it (one row per request), the GitHub renderer renders it
 * and time travel answers with it: each reads the same record, so they cannot disagree about
 * what a request is. Pure: the same events give the same record.
 */

/** `draft` in `proposed`, `closed` in a terminal stage, `active` otherwise (deferred too). */
export type RequestStatus = 'draft' | 'active' | 'closed';

export type ProposalOutcome = 'pending' | 'approved' | 'rejected';

/** A stage proposal, from its proposal to its decision. */
export interface ProposalRecord {
  /** `<requestId>-p<n>`: proposal n of the request. */
  readonly proposalId: string;
  readonly fromStage: Stage;
  readonly toStage: Stage;
  readonly proposedBy: string;
  readonly proposedAt: string;
  readonly rationale: string;
  readonly evidence: Evidence;
  /** Stream revision of the proposal's event: the request as it stood when proposed. */
  readonly revision: number;
  readonly pullRequest: {
    readonly repository: string;
    readonly branch: string;
    readonly pullNumber: number;
    readonly pullUrl: string;
    /** The reactor's commit on the branch, when recorded. */
    readonly headSha?: string;
  } | null;
  readonly outcome: ProposalOutcome;
  /** Who approved or rejected it, how and when; null while pending. */
  readonly decision: {
    readonly by: string;
    readonly via: 'github' | 'local';
    readonly at: string;
    /** The merge commit of an approval on GitHub; null otherwise. */
    readonly mergeCommitSha: string | null;
  } | null;
}

/** The intake as proposed (`RequestProposed`: `proposedBy` is the actor who submitted it). */
export interface RequestRecord extends Readonly<RequestProposed['data']> {
  readonly stage: Stage;
  readonly status: RequestStatus;
  /** While deferred: the stage to resume to. */
  readonly resumeStage: Stage | null;
  /** Every proposal in order: proposal n has id `<requestId>-p<n>`. */
  readonly proposals: readonly ProposalRecord[];
  readonly pendingProposalId: string | null;
  /** Evidence of the approved proposals, merged in order (what the DoD is checked against). */
  readonly evidence: Evidence;
  readonly intakeIssue: {
    readonly repository: string;
    readonly number: number;
    readonly url: string;
  } | null;
  /** Why the intake was rejected or the request withdrawn; null otherwise. */
  readonly closedReason: string | null;
  /** ISO-8601 UTC (event time: metadata `at`). */
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Stream revision of the last event folded (0-based). */
  readonly version: number;
  readonly lastPosition: Position;
}

/** Where an event sits and when it was decided: all the fold needs besides the event. */
export interface EventPlace {
  readonly revision: RecordedEvent['revision'];
  readonly position: RecordedEvent['position'];
  readonly metadata: { readonly at: string };
}

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

export const findProposal = (
  record: RequestRecord,
  proposalId: string,
): ProposalRecord | undefined => record.proposals.find((p) => p.proposalId === proposalId);

export const pendingProposalOf = (record: RequestRecord): ProposalRecord | null =>
  record.pendingProposalId === null
    ? null
    : (findProposal(record, record.pendingProposalId) ?? null);

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/** What every event changes: when, and where in the stream and the log. */
type Bookkeeping = Pick<RequestRecord, 'updatedAt' | 'version' | 'lastPosition'>;

/*
 * The fold copies a record (and a proposal) per event with every field spelled out: V8
 * copies a spread of an object this size tens of times slower than it builds a literal, and
 * a replay folds every event of the log. Each copy lists the keys of `Required<…>`, so a new
 * field is a compile error here rather than a field silently dropped.
 */

/** The record after one event: the same fields, the bookkeeping, then the event's changes. */
const changed = (
  record: RequestRecord,
  bookkeeping: Bookkeeping,
  changes: Partial<Writable<RequestRecord>>,
): RequestRecord => {
  const next: Writable<Required<RequestRecord>> = {
    requestId: record.requestId,
    title: record.title,
    problem: record.problem,
    product: record.product,
    requester: record.requester,
    priority: record.priority,
    acceptanceCriteria: record.acceptanceCriteria,
    links: record.links,
    proposedBy: record.proposedBy,
    stage: record.stage,
    status: record.status,
    resumeStage: record.resumeStage,
    proposals: record.proposals,
    pendingProposalId: record.pendingProposalId,
    evidence: record.evidence,
    intakeIssue: record.intakeIssue,
    closedReason: record.closedReason,
    createdAt: record.createdAt,
    updatedAt: bookkeeping.updatedAt,
    version: bookkeeping.version,
    lastPosition: bookkeeping.lastPosition,
  };
  return Object.assign(next, changes);
};

/** The proposal with `changes`: the same fields otherwise. */
const changedProposal = (
  proposal: ProposalRecord,
  changes: Partial<Writable<ProposalRecord>>,
): ProposalRecord => {
  const next: Writable<Required<ProposalRecord>> = {
    proposalId: proposal.proposalId,
    fromStage: proposal.fromStage,
    toStage: proposal.toStage,
    proposedBy: proposal.proposedBy,
    proposedAt: proposal.proposedAt,
    rationale: proposal.rationale,
    evidence: proposal.evidence,
    revision: proposal.revision,
    pullRequest: proposal.pullRequest,
    outcome: proposal.outcome,
    decision: proposal.decision,
  };
  return Object.assign(next, changes);
};

const updateProposal = (
  record: RequestRecord,
  proposalId: string,
  changes: Partial<Writable<ProposalRecord>>,
): readonly ProposalRecord[] =>
  record.proposals.map((proposal) =>
    proposal.proposalId === proposalId ? changedProposal(proposal, changes) : proposal,
  );

const moveTo = (
  from: Stage,
  to: Stage,
): Pick<RequestRecord, 'stage' | 'status' | 'resumeStage'> => ({
  stage: to,
  status: statusOf(to),
  // `deferred` parks a request: remember where it resumes; leaving it forgets that.
  resumeStage: to === 'deferred' ? from : null,
});

const stillPending = (record: RequestRecord, decided: string): string | null =>
  record.pendingProposalId === decided ? null : record.pendingProposalId;

/**
 * Folds one event into the record. Throws when the event cannot follow it (an event of a
 * request that was never proposed, a second RequestProposed): the log is not one a decider
 * wrote, and a reader must stop rather than guess.
 */
export const evolveRequest = (
  record: RequestRecord | undefined,
  recorded: EventPlace,
  event: RequestEvent,
): RequestRecord => {
  const at = isoTime(recorded.metadata.at);
  const bookkeeping: Bookkeeping = {
    updatedAt: at,
    version: Number(recorded.revision),
    lastPosition: recorded.position,
  };
  if (event.type === 'RequestProposed') {
    if (record) throw new Error(`request ${event.data.requestId} was already proposed`);
    // The intake's own fields only: stored data may carry fields this version does not know.
    const { data } = event;
    // A literal without spreads: built from spreads, V8 gives an object this size slow
    // (dictionary) properties, and every later copy of the record pays for it.
    return {
      requestId: data.requestId,
      title: data.title,
      problem: data.problem,
      product: data.product,
      requester: data.requester,
      priority: data.priority,
      acceptanceCriteria: data.acceptanceCriteria,
      links: data.links,
      proposedBy: data.proposedBy,
      stage: 'proposed',
      status: statusOf('proposed'),
      resumeStage: null,
      proposals: [],
      pendingProposalId: null,
      evidence: {},
      intakeIssue: null,
      closedReason: null,
      createdAt: at,
      updatedAt: bookkeeping.updatedAt,
      version: bookkeeping.version,
      lastPosition: bookkeeping.lastPosition,
    };
  }
  if (!record)
    throw new Error(`${event.type} for request ${event.data.requestId}, which was never proposed`);
  // Each case copies the record once (with the bookkeeping): the fold runs per event.
  switch (event.type) {
    case 'IntakeIssueOpened':
      return changed(record, bookkeeping, {
        intakeIssue: {
          repository: event.data.repository,
          number: event.data.issueNumber,
          url: event.data.issueUrl,
        },
      });
    case 'IntakeRejected':
    case 'RequestWithdrawn':
      // A pending proposal is abandoned with the request; it can still be recorded as rejected.
      return Object.assign(
        changed(record, bookkeeping, { pendingProposalId: null, closedReason: event.data.reason }),
        moveTo(record.stage, event.type === 'IntakeRejected' ? 'rejected' : 'withdrawn'),
      );
    case 'StageAdvanceProposed': {
      const { proposalId, fromStage, toStage, evidence, rationale, proposedBy } = event.data;
      const proposal: ProposalRecord = {
        proposalId,
        fromStage,
        toStage,
        proposedBy,
        proposedAt: at,
        rationale,
        evidence,
        revision: Number(recorded.revision),
        pullRequest: null,
        outcome: 'pending',
        decision: null,
      };
      return changed(record, bookkeeping, {
        proposals: [...record.proposals, proposal],
        pendingProposalId: proposalId,
      });
    }
    case 'ProposalPullRequestOpened': {
      const { proposalId, repository, branch, pullNumber, pullUrl, headSha } = event.data;
      return changed(record, bookkeeping, {
        proposals: updateProposal(record, proposalId, {
          pullRequest: {
            repository,
            branch,
            pullNumber,
            pullUrl,
            ...(headSha === undefined ? {} : { headSha }),
          },
        }),
      });
    }
    case 'StageAdvanceApproved': {
      // Approval decides the proposal, and its evidence joins the request's.
      const { proposalId, approvedBy, via, mergeCommitSha } = event.data;
      const approved = findProposal(record, proposalId);
      return changed(record, bookkeeping, {
        evidence: approved ? mergeEvidence(record.evidence, approved.evidence) : record.evidence,
        proposals: updateProposal(record, proposalId, {
          outcome: 'approved',
          decision: { by: approvedBy, via, at, mergeCommitSha },
        }),
        pendingProposalId: stillPending(record, proposalId),
      });
    }
    case 'StageAdvanced':
      return Object.assign(
        changed(record, bookkeeping, {
          pendingProposalId: stillPending(record, event.data.proposalId),
        }),
        moveTo(event.data.fromStage, event.data.toStage),
      );
    case 'StageAdvanceRejected': {
      const { proposalId, rejectedBy, via } = event.data;
      return changed(record, bookkeeping, {
        proposals: updateProposal(record, proposalId, {
          outcome: 'rejected',
          decision: { by: rejectedBy, via, at, mergeCommitSha: null },
        }),
        pendingProposalId: stillPending(record, proposalId),
      });
    }
    default:
      return event satisfies never;
  }
};

/**
 * Folds the stored events of a request stream in order, each checked against its schema.
 * `uptoRevision` stops after that event (inclusive): the request as it stood then. Undefined
 * when no event is folded.
 */
export const foldRequestStream = (
  events: readonly RecordedEvent[],
  uptoRevision?: bigint,
): RequestRecord | undefined => {
  let record: RequestRecord | undefined;
  for (const recorded of events) {
    if (uptoRevision !== undefined && recorded.revision > uptoRevision) break;
    record = evolveRequest(record, recorded, parseRequestEvent(recorded));
  }
  return record;
};
