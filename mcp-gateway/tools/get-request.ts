import { z } from 'zod';
import { evidenceSchema } from '../../lifecycle/evidence.js';
import { STAGES } from '../../lifecycle/stages.js';
import {
  requestDocument,
  type RequestState,
  type RequestView,
} from '../../services/requests/read-service.js';
import { defineTool, READ_ONLY } from '../registry.js';

/**
 * `get_request`: one request as the read model shows it now, or — with `as_of` — as it stood
 * at a log position or an instant, folded from its stream (time travel). Both answers carry
 * the request document (the same one `resources/read` serves) and its ordered history.
 *
 * Also home of what the other request tools share: the request id and stage schemas and the
 * document schema. What the caller may read is the requests read service's to decide.
 */

export const requestIdArg = z
  .string()
  .regex(/^req-\d{4}-\d{4,}$/, { error: 'request_id must look like "req-2026-0042"' })
  .describe('Request id, e.g. "req-2026-0042" (see list_requests).');

export const stageSchema = z.enum(STAGES, {
  error: `must be one of ${STAGES.join(', ')}`,
});

const prioritySchema = z.enum(['low', 'medium', 'high', 'critical']);
const statusSchema = z.enum(['draft', 'active', 'closed']);

const pendingProposalSchema = z.object({
  proposalId: z.string(),
  fromStage: stageSchema,
  toStage: stageSchema,
  proposedBy: z.string(),
  proposedAt: z.string(),
  rationale: z.string(),
  evidence: evidenceSchema,
  pullNumber: z.number().int().nullable(),
  pullUrl: z.string().nullable(),
});

/** The request document (camelCase, like every stored document and resource). */
export const requestDocumentSchema = z.object({
  requestId: z.string(),
  uri: z.string(),
  title: z.string(),
  problem: z.string(),
  product: z.string(),
  requester: z.string(),
  priority: prioritySchema,
  acceptanceCriteria: z.array(z.object({ id: z.string(), text: z.string() })),
  links: z.array(z.object({ url: z.string(), title: z.string().optional() })),
  stage: stageSchema,
  status: statusSchema,
  resumeStage: stageSchema.nullable(),
  pendingProposal: pendingProposalSchema.nullable(),
  evidence: evidenceSchema,
  intakeIssue: z.object({ repository: z.string(), number: z.number(), url: z.string() }).nullable(),
  proposedBy: z.string(),
  closedReason: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  version: z.number().int(),
});

export type RequestDocumentOutput = z.infer<typeof requestDocumentSchema>;

/** The read model's document, as the tools' output schema types it (plain arrays). */
export const documentOf = (state: RequestState): RequestDocumentOutput => {
  const document = requestDocument(state);
  return {
    ...document,
    acceptanceCriteria: document.acceptanceCriteria.map((criterion) => ({ ...criterion })),
    links: document.links.map((link) => ({ ...link })),
  };
};

const positionPattern = /^[0-9a-f]{16}-[0-9a-f]{16}$/;

const historyEntrySchema = z.object({
  revision: z.number().int(),
  position: z.string(),
  type: z.string(),
  actor: z.string(),
  at: z.string(),
  hash: z.string(),
  prevHash: z.string().nullable(),
  summary: z.string(),
});

const input = z.strictObject({
  request_id: requestIdArg,
  as_of: z
    .union([
      z.string().regex(positionPattern),
      z.iso.datetime({ offset: true, error: 'an ISO-8601 timestamp with offset' }),
    ])
    .optional()
    .describe(
      'Show the request as it stood then: a log position ("000000000000002a-0000000000000101", as history entries show) or an ISO-8601 timestamp with offset ("2026-11-30T08:00:00Z"). Omitted: now.',
    ),
});

/** Every proposal of the request, decided or pending, with who decided it, how and when. */
const proposalSchema = pendingProposalSchema.extend({
  outcome: z.enum(['pending', 'approved', 'rejected']),
  decision: z
    .object({
      by: z.string(),
      via: z.enum(['github', 'local']),
      at: z.string(),
      mergeCommitSha: z.string().nullable(),
    })
    .nullable(),
});

const output = z.object({
  request_id: z.string(),
  /** Echo of the argument; null for the current state. */
  as_of: z.string().nullable(),
  /** `read_model` (now) or `event_stream` (time travel). */
  source: z.enum(['read_model', 'event_stream']),
  request: requestDocumentSchema,
  /** Every event of the request up to the view, oldest first, with actors and chain hashes. */
  history: z.array(historyEntrySchema),
  /** Every proposal up to the view, oldest first: decided ones with their decision. */
  proposals: z.array(proposalSchema),
});

type Output = z.infer<typeof output>;
/** The structured result (the console renders it). */
export type GetRequestOutput = Output;

const renderRequest = (result: Output): string => {
  const r = result.request;
  const lines = [
    `${r.requestId} — ${r.title}${result.as_of ? ` (as of ${result.as_of})` : ''}`,
    `Stage: ${r.stage} (${r.status})  Product: ${r.product}  Priority: ${r.priority}  Requester: ${r.requester}`,
    `Problem: ${r.problem}`,
    'Acceptance criteria:',
    ...r.acceptanceCriteria.map((criterion) => `  ${criterion.id}: ${criterion.text}`),
  ];
  if (r.intakeIssue) lines.push(`Intake issue: ${r.intakeIssue.url}`);
  if (r.pendingProposal) {
    const p = r.pendingProposal;
    lines.push(
      `Pending proposal ${p.proposalId}: ${p.fromStage} → ${p.toStage} by ${p.proposedBy}${
        p.pullUrl ? ` (draft PR ${p.pullUrl})` : ' (draft PR not opened yet)'
      }`,
    );
  }
  if (r.closedReason) lines.push(`Closed: ${r.closedReason}`);
  lines.push('History:');
  for (const entry of result.history) {
    lines.push(
      `  #${entry.revision} ${entry.at} ${entry.actor}: ${entry.summary} [${entry.hash.slice(0, 12)}]`,
    );
  }
  return lines.join('\n');
};

export const getRequestTool = defineTool({
  name: 'get_request',
  title: 'Get a request',
  description:
    'Returns one request: its document (title, problem, product, acceptance criteria, stage, status, pending proposal with its draft PR link, accumulated evidence, intake issue), every proposal (pending or decided, with its evidence, PR link and who decided it) and its full history (every event with actor, time, position and hash-chain hashes). With as_of (a log position or an ISO-8601 timestamp) it returns the request as it stood then, for audits. Use list_requests to find ids.',
  input,
  output,
  annotations: READ_ONLY,
  access: 'read',
  icon: 'data:image/svg+xml;utf8,<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M6 2h9l5 5v15H6z" fill="none" stroke="currentColor" stroke-width="2"/></svg>',
  handler: async (args, { services, scope }) => {
    const view: RequestView =
      args.as_of === undefined
        ? await services.requestsRead.get(scope, args.request_id)
        : await services.requestsRead.asOf(scope, args.request_id, args.as_of);
    return {
      request_id: args.request_id,
      as_of: args.as_of ?? null,
      source: args.as_of === undefined ? ('read_model' as const) : ('event_stream' as const),
      request: documentOf(view.state),
      history: view.history.map((entry) => ({ ...entry })),
      proposals: view.state.proposals.map(
        ({ revision: _revision, pullRequest, decision, ...proposal }) => ({
          ...proposal,
          pullNumber: pullRequest?.pullNumber ?? null,
          pullUrl: pullRequest?.pullUrl ?? null,
          decision: decision && { ...decision },
        }),
      ),
    };
  },
  render: renderRequest,
});
