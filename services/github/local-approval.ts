import type { Stage } from '../../lifecycle/stages.js';
import type { EventStore, Position, RecordedEvent } from '../event-store/types.js';
import { MAX_READ_COUNT } from '../event-store/validation.js';
import { foldRequestView, summariseEvidence } from './render.js';

/**
 * Local approval mode (no GitHub configured): the proposals waiting for a maintainer. Until the
 * requests projection exists this reads the log filtered to request streams and folds each
 * stream; it is an operator command, not a read path of the gateway.
 */
export interface PendingProposal {
  readonly requestId: string;
  readonly title: string;
  readonly proposalId: string;
  readonly fromStage: Stage;
  readonly toStage: Stage;
  readonly proposedBy: string;
  readonly proposedAt: string;
  readonly rationale: string;
  readonly evidence: string;
}

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

/** Pending proposals of active requests, oldest first. */
export const listPendingProposals = async (eventStore: EventStore): Promise<PendingProposal[]> => {
  const pending: PendingProposal[] = [];
  for (const events of (await readRequestLog(eventStore)).values()) {
    const view = foldRequestView(events);
    if (!view || view.status !== 'active') continue;
    for (const proposal of view.proposals.values()) {
      if (proposal.status !== 'pending') continue;
      pending.push({
        requestId: view.requestId,
        title: view.title,
        proposalId: proposal.data.proposalId,
        fromStage: proposal.data.fromStage,
        toStage: proposal.data.toStage,
        proposedBy: proposal.data.proposedBy,
        proposedAt: proposal.at,
        rationale: proposal.data.rationale,
        evidence: summariseEvidence(proposal.data.evidence, view.acceptanceCriteria.length),
      });
    }
  }
  return pending.sort((a, b) => a.proposedAt.localeCompare(b.proposedAt));
};
