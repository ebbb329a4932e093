import type { Stage } from '../../../lifecycle/stages.js';
import type { Position, RecordedEvent } from '../../event-store/types.js';
import type { AcceptanceCriterion, Priority, RequestEvent, RequestLink } from '../events.js';
import type { Evidence } from '../../../lifecycle/evidence.js';
import type { ProposalRecord } from '../fold.js';
import {
  pendingDocument,
  requestUri,
  summarize,
  type RequestState,
  type RequestStatus,
} from './state.js';

/** A `read_model.requests` row as `pg` returns it (and, with ISO strings, as it is written). */
export interface RequestRow {
  request_id: string;
  uri: string;
  title: string;
  problem: string;
  product: string;
  requester: string;
  priority: string;
  acceptance_criteria: unknown;
  links: unknown;
  stage: string;
  status: string;
  resume_stage: string | null;
  pending_proposal_id: string | null;
  pending_from_stage: string | null;
  pending_to_stage: string | null;
  pending_proposed_by: string | null;
  pending_proposed_at: Date | string | null;
  pending_rationale: string | null;
  pending_evidence: unknown;
  pending_pr_number: number | null;
  pending_pr_url: string | null;
  evidence: unknown;
  proposals: unknown;
  intake_repository: string | null;
  intake_issue_number: number | null;
  intake_issue_url: string | null;
  proposed_by: string;
  closed_reason: string | null;
  created_at: Date | string;
  updated_at: Date | string;
  version: string | number;
  last_position: string;
}

/** Column order of inserts and upserts. */
export const REQUEST_COLUMNS = [
  'request_id',
  'uri',
  'title',
  'problem',
  'product',
  'requester',
  'priority',
  'acceptance_criteria',
  'links',
  'stage',
  'status',
  'resume_stage',
  'pending_proposal_id',
  'pending_from_stage',
  'pending_to_stage',
  'pending_proposed_by',
  'pending_proposed_at',
  'pending_rationale',
  'pending_evidence',
  'pending_pr_number',
  'pending_pr_url',
  'evidence',
  'proposals',
  'intake_repository',
  'intake_issue_number',
  'intake_issue_url',
  'proposed_by',
  'closed_reason',
  'created_at',
  'updated_at',
  'version',
  'last_position',
] as const satisfies readonly (keyof RequestRow)[];

const iso = (value: Date | string): string =>
  (value instanceof Date ? value : new Date(value)).toISOString();

export const toRequestRow = (state: RequestState): RequestRow => {
  const pending = pendingDocument(state);
  return {
    request_id: state.requestId,
    uri: requestUri(state.requestId),
    title: state.title,
    problem: state.problem,
    product: state.product,
    requester: state.requester,
    priority: state.priority,
    acceptance_criteria: state.acceptanceCriteria,
    links: state.links,
    stage: state.stage,
    status: state.status,
    resume_stage: state.resumeStage,
    pending_proposal_id: pending?.proposalId ?? null,
    pending_from_stage: pending?.fromStage ?? null,
    pending_to_stage: pending?.toStage ?? null,
    pending_proposed_by: pending?.proposedBy ?? null,
    pending_proposed_at: pending?.proposedAt ?? null,
    pending_rationale: pending?.rationale ?? null,
    pending_evidence: pending?.evidence ?? null,
    pending_pr_number: pending?.pullNumber ?? null,
    pending_pr_url: pending?.pullUrl ?? null,
    evidence: state.evidence,
    proposals: state.proposals,
    intake_repository: state.intakeIssue?.repository ?? null,
    intake_issue_number: state.intakeIssue?.number ?? null,
    intake_issue_url: state.intakeIssue?.url ?? null,
    proposed_by: state.proposedBy,
    closed_reason: state.closedReason,
    created_at: state.createdAt,
    updated_at: state.updatedAt,
    version: state.version,
    last_position: state.lastPosition,
  };
};

// Rows are only ever written from a record, so the text columns hold valid stages etc.; the
// pending_* columns repeat the pending proposal for SQL readers and are not read back.
export const fromRequestRow = (row: RequestRow): RequestState => ({
  requestId: row.request_id,
  title: row.title,
  problem: row.problem,
  product: row.product,
  requester: row.requester,
  priority: row.priority as Priority,
  acceptanceCriteria: row.acceptance_criteria as AcceptanceCriterion[],
  links: row.links as RequestLink[],
  proposedBy: row.proposed_by,
  stage: row.stage as Stage,
  status: row.status as RequestStatus,
  resumeStage: row.resume_stage as Stage | null,
  proposals: row.proposals as ProposalRecord[],
  pendingProposalId: row.pending_proposal_id,
  evidence: row.evidence as Evidence,
  intakeIssue:
    row.intake_issue_number === null
      ? null
      : {
          repository: row.intake_repository ?? '',
          number: row.intake_issue_number,
          url: row.intake_issue_url ?? '',
        },
  closedReason: row.closed_reason,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
  version: Number(row.version),
  lastPosition: row.last_position as Position,
});

/** `read_model.request_history`'s columns, in table order. */
export const HISTORY_COLUMNS = [
  'position',
  'request_id',
  'stream_revision',
  'event_id',
  'type',
  'actor',
  'at',
  'hash',
  'prev_hash',
  'summary',
] as const;

export type HistoryRow = Record<(typeof HISTORY_COLUMNS)[number], string | null>;

/** The history row of one event. */
export const toHistoryRow = (recorded: RecordedEvent, event: RequestEvent): HistoryRow => ({
  position: recorded.position,
  request_id: event.data.requestId,
  stream_revision: recorded.revision.toString(),
  event_id: recorded.id,
  type: recorded.type,
  actor: recorded.metadata.actor,
  at: recorded.metadata.at,
  hash: recorded.hash,
  prev_hash: recorded.prevHash,
  summary: summarize(event),
});
