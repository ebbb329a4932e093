import { describe, expect, it } from 'vitest';
import { STAGES, TERMINAL_STAGES } from '../../../lifecycle/stages.js';
import { RequestClosed, TransitionNotAllowed } from '../../../services/requests/errors.js';
import { spec } from '../../support/decider-spec.js';
import { EVIDENCE_TO_LEAVE, EXPECTED_PROPOSABLE } from '../lifecycle/fixtures.js';
import { historyTo, MAINTAINER, meta, REQUEST_ID, requestDecider } from './fixtures.js';

const request = spec(requestDecider);

/**
 * Every (stage, target) pair through the decider: a request really in `from` (built from
 * stored events), a proposal to `to` with the evidence that leaves `from`. Allowed pairs must
 * produce a proposal whose approval lands in `to`; every other pair must be refused with the
 * allowed stages, appending nothing.
 */
describe('decider over the stage graph', () => {
  for (const from of STAGES) {
    for (const to of STAGES) {
      const allowed = EXPECTED_PROPOSABLE[from].includes(to);
      const closed = TERMINAL_STAGES.includes(from);
      const expectation = allowed
        ? `${to} after approval`
        : closed
          ? 'RequestClosed'
          : 'TransitionNotAllowed';
      it(`given a request in ${from}, when ${to} is proposed and approved, then ${expectation}`, () => {
        const history = historyTo(from);
        const proposing = request.given(history).when({
          type: 'ProposeStageAdvance' as const,
          input: {
            requestId: REQUEST_ID,
            toStage: to,
            evidence: EVIDENCE_TO_LEAVE[from],
            rationale: 'Table-driven move.',
          },
          meta: meta(),
        });
        if (closed) {
          proposing.thenThrows(RequestClosed);
          return;
        }
        if (!allowed) {
          proposing.thenThrows(TransitionNotAllowed, (error) =>
            error.message.includes(
              `Stages a proposal may target from "${from}": ${EXPECTED_PROPOSABLE[from].join(', ')}.`,
            ),
          );
          return;
        }
        const { decision: proposal, state: afterProposal } = proposing.then([
          expect.objectContaining({ type: 'StageAdvanceProposed' }),
        ]);
        const proposalId = afterProposal?.pendingProposalId ?? '';
        const { state } = request
          .given([...history, ...proposal])
          .when({
            type: 'ApproveProposal',
            input: { requestId: REQUEST_ID, proposalId, decidedBy: MAINTAINER, via: 'github' },
            meta: meta(MAINTAINER),
          })
          .then([
            expect.objectContaining({ type: 'StageAdvanceApproved' }),
            {
              type: 'StageAdvanced',
              data: { requestId: REQUEST_ID, proposalId, fromStage: from, toStage: to },
            },
          ]);
        expect(state?.stage).toBe(to);
      });
    }
  }
});
