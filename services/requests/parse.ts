import { z } from 'zod';
import { STAGES } from '../../lifecycle/stages.js';
import type { RecordedEvent } from '../event-store/types.js';
import { requestStreamId, type RequestEvent } from './events.js';
import { eventDataParser } from '../../projections/event-data.js';

/**
 * The data of a stored Request event, checked before it is folded (see `eventDataParser`).
 * Only the fields the read model uses are checked; unknown fields are kept as they are.
 */
const stage = z.enum(STAGES);
const via = z.enum(['github', 'local']);
const text = z.string();
const id = z.string().min(1);

const schemas = {
  RequestProposed: z.looseObject({
    requestId: id,
    title: text,
    problem: text,
    product: text,
    requester: text,
    acceptanceCriteria: z.array(z.looseObject({ id: text, text })),
    links: z.array(z.looseObject({ url: text, title: text.optional() })),
    priority: z.enum(['low', 'medium', 'high', 'critical']),
    proposedBy: text,
  }),
  IntakeIssueOpened: z.looseObject({
    requestId: id,
    repository: text,
    issueNumber: z.int(),
    issueUrl: text,
  }),
  IntakeRejected: z.looseObject({ requestId: id, rejectedBy: text, via, reason: text }),
  StageAdvanceProposed: z.looseObject({
    requestId: id,
    proposalId: id,
    fromStage: stage,
    toStage: stage,
    evidence: z.record(z.string(), z.unknown()),
    rationale: text,
    proposedBy: text,
  }),
  ProposalPullRequestOpened: z.looseObject({
    requestId: id,
    proposalId: id,
    repository: text,
    branch: text,
    pullNumber: z.int(),
    pullUrl: text,
    headSha: text.optional(),
  }),
  StageAdvanceApproved: z.looseObject({
    requestId: id,
    proposalId: id,
    approvedBy: text,
    via,
    mergeCommitSha: text.nullable(),
  }),
  StageAdvanced: z.looseObject({ requestId: id, proposalId: id, fromStage: stage, toStage: stage }),
  StageAdvanceRejected: z.looseObject({
    requestId: id,
    proposalId: id,
    rejectedBy: text,
    via,
    reason: text,
  }),
  RequestWithdrawn: z.looseObject({ requestId: id, withdrawnBy: text, reason: text }),
} satisfies Record<RequestEvent['type'], z.ZodType>;

const parseData = eventDataParser('Request', schemas);

/** The event as a typed Request event; throws with the offending fields otherwise. */
export const parseRequestEvent = (event: RecordedEvent): RequestEvent =>
  // The schema of `event.type` checked exactly the fields of that member of the union.
  ({ type: event.type, data: parseData(event) }) as RequestEvent;

/** `parseRequestEvent`, and the event must be stored on the stream of the request it names. */
export const parseStoredRequestEvent = (recorded: RecordedEvent): RequestEvent => {
  const event = parseRequestEvent(recorded);
  if (recorded.streamId !== requestStreamId(event.data.requestId)) {
    throw new Error(
      `${recorded.type} names request ${event.data.requestId} but is stored on stream ${recorded.streamId}`,
    );
  }
  return event;
};
