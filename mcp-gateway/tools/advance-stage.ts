import { z } from 'zod';
import { evidenceSchema } from '../../lifecycle/evidence.js';
import { appendOnly, defineTool } from '../registry.js';
import { requestIdArg, stageSchema } from './get-request.js';

/**
 * `advance_stage`: proposes moving a request to another stage. Propose-only: the command
 * handler validates the transition and the Definition of Done and appends
 * `StageAdvanceProposed`; the stage does not change. The GitHub reactor opens a draft pull
 * request for the proposal, and only a maintainer merging it (or the local approval CLI)
 * advances the request. A refused proposal (no such edge, unmet DoD, a pending proposal)
 * is a tool error that lists what is missing, and appends nothing.
 */

const input = z.strictObject({
  request_id: requestIdArg,
  to_stage: stageSchema.describe(
    'The stage to propose; get_dod with request_id lists the stages allowed from where it is.',
  ),
  evidence: evidenceSchema.describe(
    'What satisfies the Definition of Done of the current stage (see get_dod): specLink, testPlan, rollbackPlan, checks [{name, conclusion, url?}], criteria {"ac-1": "..."}, links, notes, verification. Keys are camelCase.',
  ),
  rationale: z
    .string()
    .trim()
    .min(10)
    .max(5000)
    .describe('Why the request should move now (at least 10 characters).'),
});

const output = z.object({
  request_id: z.string(),
  /** The request's stage, unchanged: a proposal does not move it. */
  stage: stageSchema,
  proposal: z.object({
    proposal_id: z.string(),
    from_stage: stageSchema,
    to_stage: stageSchema,
    status: z.literal('pending'),
    proposed_by: z.string(),
    /** The draft pull request; null until the reactor has opened it (or in local approval mode). */
    pull_url: z.string().nullable(),
  }),
  next_step: z.string(),
});

export const advanceStageTool = defineTool({
  name: 'advance_stage',
  title: 'Propose a stage change',
  description:
    'Proposes moving a request to another stage, with evidence for the current stage’s Definition of Done (see get_dod) and a rationale. It records a PROPOSAL only: the stage does not change until a maintainer approves it (next_step says how in this deployment). To withdraw your own request, propose to_stage "withdrawn". Refused (as an error listing what is missing or allowed) when the transition is not allowed, the DoD is unmet, or another proposal is pending. Returns proposal_id and the draft PR link once it exists.',
  input,
  output,
  annotations: appendOnly({ idempotent: false, openWorld: true }),
  access: 'propose',
  icon: 'data:image/svg+xml;utf8,<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M5 12h12M13 6l6 6-6 6" fill="none" stroke="currentColor" stroke-width="2"/></svg>',
  handler: async (args, context) => {
    const { services, caller, scope } = context;
    // A request outside the scope is absent: nothing is proposed for it.
    await services.requestsRead.productOf(scope, args.request_id);
    const { proposalId, revision } = await services.requests.proposeStageAdvance(
      {
        requestId: args.request_id,
        toStage: args.to_stage,
        evidence: args.evidence,
        rationale: args.rationale,
      },
      { commandId: context.newId(), actor: caller.actor, at: context.now().toISOString() },
    );
    const { stage, fromStage, pullUrl } = await services.requestsRead.proposal(
      scope,
      args.request_id,
      proposalId,
      revision,
    );
    return {
      request_id: args.request_id,
      stage,
      proposal: {
        proposal_id: proposalId,
        from_stage: fromStage,
        to_stage: args.to_stage,
        status: 'pending' as const,
        proposed_by: caller.actor,
        pull_url: pullUrl,
      },
      next_step:
        services.approvals.current().kind === 'github'
          ? `Proposal ${proposalId} is pending; the request stays in "${stage}". A draft pull request is opened for it on GitHub; a maintainer merging it advances the request to "${args.to_stage}", closing it rejects the proposal. Follow it with get_request.`
          : `Proposal ${proposalId} is pending; the request stays in "${stage}". A maintainer approves it on this machine with \`cogitave proposals approve ${proposalId}\` or in the console (/console), which moves the request to "${args.to_stage}", or rejects it with \`cogitave proposals reject\`. Follow it with get_request.`,
    };
  },
  render: (result) =>
    [
      `Proposed ${result.request_id}: ${result.proposal.from_stage} → ${result.proposal.to_stage} (${result.proposal.proposal_id}, pending).`,
      `Stage unchanged: ${result.stage}.`,
      ...(result.proposal.pull_url ? [`Draft PR: ${result.proposal.pull_url}`] : []),
      result.next_step,
    ].join('\n'),
});
