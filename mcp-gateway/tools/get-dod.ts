import { z } from 'zod';
import { dodFor, type RequestFacts } from '../../lifecycle/dod.js';
import { pendingProposalOf } from '../../services/requests/fold.js';
import { factsOf, lifecycleView } from '../../services/requests/state.js';
import { STAGES, type Stage } from '../../lifecycle/stages.js';
import { proposableStages } from '../../lifecycle/validate.js';
import { defineTool, READ_ONLY } from '../registry.js';
import { requestIdArg, stageSchema } from './get-request.js';

/**
 * `get_dod`: the Definition of Done — the checklist that must hold to leave a stage. For a
 * request it also says which items hold now (checked against the intake and the evidence of
 * its approved proposals) and which stages a proposal may target from where it is.
 */

const input = z.strictObject({
  request_id: requestIdArg
    .optional()
    .describe('A request: its current stage’s checklist, each item marked met or not.'),
  stage: stageSchema
    .optional()
    .describe(
      'A stage: its checklist. With request_id, checks the request against this stage instead of its current one. Neither: every stage.',
    ),
});

const itemSchema = z.object({
  id: z.string(),
  description: z.string(),
  /** Only when a request was given. */
  met: z.boolean().optional(),
  /** What is missing, when not met. */
  detail: z.string().optional(),
});

const output = z.object({
  request_id: z.string().nullable(),
  /** The request's current stage; null without a request. */
  current_stage: stageSchema.nullable(),
  stages: z.array(z.object({ stage: stageSchema, items: z.array(itemSchema) })),
  /** With a request: whether every listed item holds. */
  all_met: z.boolean().nullable(),
  /** With a request: the stages an advance_stage proposal may target now (edges, not DoD). */
  next_stages: z.array(stageSchema).nullable(),
  note: z.string(),
});

type Output = z.infer<typeof output>;
/** The structured result (the console renders it). */
export type GetDodOutput = Output;

const NOTE_CATALOGUE =
  'Each checklist must hold to LEAVE its stage forward. Attach what an item asks for as advance_stage evidence (keys such as specLink, testPlan, rollbackPlan, checks, criteria, links, verification).';
const NOTE_REQUEST =
  'Checked against the intake and the evidence of approved proposals. The evidence you attach to advance_stage is merged before the check, so an unmet item can be met by that proposal.';

const checklist = (stage: Stage, facts?: RequestFacts): Output['stages'][number] => ({
  stage,
  items: dodFor(stage).map((item) => {
    if (!facts) return { id: item.id, description: item.description };
    const result = item.check(facts);
    return result.met
      ? { id: item.id, description: item.description, met: true }
      : { id: item.id, description: item.description, met: false, detail: result.detail };
  }),
});

export const getDodTool = defineTool({
  name: 'get_dod',
  title: 'Get the Definition of Done',
  description:
    'Returns the Definition of Done: the checklist that must hold to leave a stage forward, with what evidence to attach for each item. Give stage for one stage, request_id to see which items hold for that request now (and which stages it may be proposed to), or nothing for every stage. Call it before advance_stage.',
  input,
  output,
  annotations: READ_ONLY,
  access: 'read',
  icon: 'data:image/svg+xml;utf8,<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M4 12l5 5L20 6" fill="none" stroke="currentColor" stroke-width="2"/></svg>',
  handler: async (args, { services, scope }) => {
    if (args.request_id === undefined) {
      const stages = args.stage ? [args.stage] : [...STAGES];
      return {
        request_id: null,
        current_stage: null,
        stages: stages.map((stage) => checklist(stage)),
        all_met: null,
        next_stages: null,
        note: NOTE_CATALOGUE,
      };
    }
    const state = await services.requestsRead.state(scope, args.request_id);
    const facts = factsOf(state);
    const stage = args.stage ?? state.stage;
    const list = checklist(stage, facts);
    const pending = pendingProposalOf(state);
    const view = lifecycleView(state);
    return {
      request_id: state.requestId,
      current_stage: state.stage,
      stages: [list],
      all_met: list.items.every((item) => item.met === true),
      next_stages: view ? proposableStages(view) : [],
      note: pending
        ? `${NOTE_REQUEST} Proposal ${pending.proposalId} (to "${pending.toStage}") is pending: no other proposal is accepted until it is decided.`
        : NOTE_REQUEST,
    };
  },
  render: (result) => {
    const lines: string[] = [];
    if (result.request_id) {
      lines.push(
        `${result.request_id} is in "${result.current_stage ?? ''}"${
          result.all_met === null ? '' : result.all_met ? '; every item holds' : '; items missing'
        }.`,
      );
      if (result.next_stages)
        lines.push(`May be proposed to: ${result.next_stages.join(', ') || 'none'}.`);
    }
    for (const { stage, items } of result.stages) {
      lines.push(`Leaving "${stage}":${items.length === 0 ? ' nothing required' : ''}`);
      for (const item of items) {
        const mark = item.met === undefined ? '-' : item.met ? '[x]' : '[ ]';
        lines.push(
          `  ${mark} ${item.id}: ${item.description}${item.detail ? ` (missing: ${item.detail})` : ''}`,
        );
      }
    }
    lines.push(result.note);
    return lines.join('\n');
  },
});
