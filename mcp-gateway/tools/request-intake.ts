import { z } from 'zod';
import {
  acceptanceCriteriaSchema,
  intakeLinkSchema,
  PRIORITIES,
  problemSchema,
  productSchema,
  requesterSchema,
  titleSchema,
} from '../../lifecycle/intake-form.js';
import { requireProduct } from '../../services/access/grants.js';
import { appendOnly, defineTool } from '../registry.js';
import { documentOf, requestDocumentSchema } from './get-request.js';

/**
 * `request_intake`: proposes a new request. Propose-only: it appends `RequestProposed`
 * through the Request command handler (the draft sits in stage `proposed`) and nothing else;
 * the GitHub reactor opens the intake issue asynchronously and a maintainer accepts or
 * rejects it there. The answer shows the draft as decided (the same fold the read model
 * runs), so it waits for no projection; the caller's next read waits until the read model
 * shows it (read-your-writes by position, see read-your-writes.ts).
 */

const input = z.strictObject({
  title: titleSchema.describe('Short summary, 8–140 characters.'),
  problem: problemSchema.describe(
    'Who is affected and what goes wrong today (at least 30 characters).',
  ),
  product: productSchema.describe('The product or service the request changes.'),
  requester: requesterSchema.describe('Who needs this: a GitHub login, an e-mail or a team name.'),
  acceptance_criteria: acceptanceCriteriaSchema.describe(
    'Measurable criteria, one checkable sentence each (4+ words; vague words like "fast" need a number). They get ids ac-1, ac-2, … in order.',
  ),
  links: z.array(intakeLinkSchema).max(20).optional().describe('Related links { url, title? }.'),
  priority: z
    .enum(PRIORITIES)
    .optional()
    .describe(`One of ${PRIORITIES.join(', ')} (default medium).`),
});

const output = z.object({
  request_id: z.string(),
  stage: z.literal('proposed'),
  status: z.literal('draft'),
  uri: z.string(),
  github: z.object({
    /** The intake issue; null until the reactor has opened it (or in local approval mode). */
    issue_url: z.string().nullable(),
  }),
  /** The draft as decided: the document get_request and the resource show. */
  request: requestDocumentSchema,
  next_step: z.string(),
});

export const requestIntakeTool = defineTool({
  name: 'request_intake',
  title: 'Propose a new request',
  description:
    'Proposes a new request (intake): title, problem, product, requester and measurable acceptance criteria. It creates a DRAFT in stage "proposed" and nothing else: a maintainer accepts or rejects it (next_step says how in this deployment). Returns request_id (req-YYYY-NNNN), the draft and, in GitHub mode, the intake issue link once it exists. Check progress with get_request; propose the next stage with advance_stage.',
  input,
  output,
  annotations: appendOnly({ idempotent: false, openWorld: true }),
  access: 'propose',
  icon: 'data:image/svg+xml;utf8,<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M12 5v14M5 12h14" stroke="currentColor" stroke-width="2"/></svg>',
  handler: async (args, context) => {
    const { services, caller } = context;
    requireProduct(context.scope, args.product, `${caller.actor} may not propose requests`);
    const intake = await services.requests.proposeIntake(
      {
        title: args.title,
        problem: args.problem,
        product: args.product,
        requester: args.requester,
        acceptanceCriteria: args.acceptance_criteria,
        links: args.links,
        priority: args.priority,
      },
      { commandId: context.newId(), actor: caller.actor, at: context.now().toISOString() },
    );
    const { requestId } = intake;
    const { state, readModel, position } = services.requestsRead.proposed(intake);
    context.recordWrite(readModel, position);
    return {
      request_id: requestId,
      stage: 'proposed' as const,
      status: 'draft' as const,
      uri: services.requestsRead.uriOf(requestId),
      // Opened by the reactor after this answer; get_request shows it then.
      github: { issue_url: null },
      request: documentOf(state),
      next_step:
        services.approvals.current().kind === 'github'
          ? `Draft ${requestId} is proposed; nothing is accepted yet. A maintainer reviews it on GitHub (the intake issue; its link appears in get_request once opened) and accepts or rejects it there. To move it on, call get_dod then advance_stage.`
          : `Draft ${requestId} is proposed; nothing is accepted yet. To move it on, call get_dod then advance_stage: a maintainer approves proposals on this machine with \`cogitave proposals approve\` or in the console (/console) (or rejects the intake with \`cogitave requests reject-intake\`). Follow it with get_request.`,
    };
  },
  render: (result) =>
    [
      `Proposed ${result.request_id} (stage ${result.stage}, ${result.status}) — ${result.uri}`,
      ...(result.github.issue_url ? [`Intake issue: ${result.github.issue_url}`] : []),
      `Title: ${result.request.title}`,
      result.next_step,
    ].join('\n'),
});
