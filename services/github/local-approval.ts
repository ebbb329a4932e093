import type { EventStore, Position, RecordedEvent } from '../event-store/types.js';
import { MAX_READ_COUNT } from '../event-store/validation.js';
import type { ProposalRecord, RequestRecord } from '../requests/fold.js';
import { foldRequestStream, isAbandoned, summariseEvidence } from './render.js';

/**
 * Local approval mode (no GitHub configured): the proposals waiting for a maintainer. Until the
 * requests projection exists this reads the log filtered to request streams and folds each
 * stream; it is an operator command, not a read path of the gateway.
 */
export type PendingProposal = Pick<RequestRecord, 'requestId' | 'title'> &
  Pick<
    ProposalRecord,
    'proposalId' | 'fromStage' | 'toStage' | 'proposedBy' | 'proposedAt' | 'rationale'
  > & {
    /** The evidence in a few words (`summariseEvidence`). */
    readonly evidence: string;
  };

const readRequestLog = async (eventStore: EventStore): Promise<Map<string, RecordedEvent[]>> => {
  const streams = new Map<string, RecordedEvent[]>();
  let fromPosition: Position | undefined;
  for (;;) {
    const page = await eventStore.readAll({
      fromPosition,
      maxCount: MAX_READ_COUNT,
      filter: { streamPrefixes: ['request-'] },
    });
    for (const event of page) {
      const events = streams.get(event.streamId) ?? [];
      events.push(event);
      streams.set(event.streamId, events);
    }
    const last = page.at(-1);
    if (!last || page.length < MAX_READ_COUNT) return streams;
    fromPosition = last.position;
  }
};

/** What the list shows of a proposal: all but its record keeping. */
const withoutRecordKeeping = ({
  revision: _revision,
  pullRequest: _pullRequest,
  outcome: _outcome,
  decision: _decision,
  ...shown
}: ProposalRecord) => shown;

/** Pending proposals of active requests, oldest first. */
export const listPendingProposals = async (eventStore: EventStore): Promise<PendingProposal[]> => {
  const pending: PendingProposal[] = [];
  for (const events of (await readRequestLog(eventStore)).values()) {
    const view = foldRequestStream(events);
    if (!view || isAbandoned(view)) continue;
    const { requestId, title } = view;
    for (const proposal of view.proposals) {
      if (proposal.outcome !== 'pending') continue;
      const { evidence, ...shown } = withoutRecordKeeping(proposal);
      const summary = summariseEvidence(evidence, view.acceptanceCriteria.length);
      pending.push({ requestId, title, ...shown, evidence: summary });
    }
  }
  return pending.sort((a, b) => a.proposedAt.localeCompare(b.proposedAt));
};
