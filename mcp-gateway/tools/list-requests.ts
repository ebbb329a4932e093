import { createHash } from 'node:crypto';
import { z } from 'zod';
import { requireProduct } from '../../services/access/grants.js';
import { requestDocument, type RequestState } from '../../services/requests/read-service.js';
import { InvalidArgument } from '../../services/runtime/errors.js';
import { defineTool, READ_ONLY } from '../registry.js';
import { stageSchema } from './get-request.js';

/**
 * `list_requests`: a page of requests from the read model, in request-id order, filtered by
 * stage, status and product, within the caller's scope (filtered in SQL, so a page is only
 * short on the last one). The cursor is opaque (base64url JSON) and bound to the filters
 * it was issued for, so a cursor reused with other filters is refused instead of silently
 * paging a different list.
 */

const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 20;

const input = z.strictObject({
  stage: stageSchema.optional().describe('Only requests in this stage.'),
  status: z
    .enum(['draft', 'active', 'closed'])
    .optional()
    .describe(
      'Only requests with this status: draft (stage proposed), active (accepted and not closed), closed (done, rejected, withdrawn, superseded).',
    ),
  product: z.string().trim().min(1).max(100).optional().describe('Only requests of this product.'),
  requester: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Only requests of this requester (exactly as the intake named them).'),
  cursor: z
    .string()
    .max(500)
    .optional()
    .describe('next_cursor of the previous page, with the same filters.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_LIMIT)
    .optional()
    .describe(`Page size, 1–${MAX_LIMIT} (default ${DEFAULT_LIMIT}).`),
});

const summarySchema = z.object({
  request_id: z.string(),
  uri: z.string(),
  title: z.string(),
  product: z.string(),
  requester: z.string(),
  priority: z.enum(['low', 'medium', 'high', 'critical']),
  stage: stageSchema,
  status: z.enum(['draft', 'active', 'closed']),
  pending_proposal: z
    .object({
      proposal_id: z.string(),
      to_stage: stageSchema,
      pull_url: z.string().nullable(),
    })
    .nullable(),
  intake_issue_url: z.string().nullable(),
  updated_at: z.string(),
});

const output = z.object({
  results: z.array(summarySchema),
  /** Pass it back as `cursor` for the next page; null on the last page. */
  next_cursor: z.string().nullable(),
});

/** The structured result (the console renders it). */
export type ListRequestsOutput = z.infer<typeof output>;

type Args = z.infer<typeof input>;

const filterKey = (args: Args): string =>
  createHash('sha256')
    .update(
      JSON.stringify([
        args.stage ?? null,
        args.status ?? null,
        args.product ?? null,
        // Appended only when given, so cursors issued before the filter existed stay valid.
        ...(args.requester === undefined ? [] : [args.requester]),
      ]),
    )
    .digest('base64url')
    .slice(0, 16);

const cursorSchema = z.strictObject({
  v: z.literal(1),
  after: z.string().regex(/^req-\d{4}-\d{4,}$/),
  f: z.string(),
});

export const encodeCursor = (args: Args, afterId: string): string =>
  Buffer.from(JSON.stringify({ v: 1, after: afterId, f: filterKey(args) })).toString('base64url');

const decodeCursor = (args: Args, cursor: string): string => {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    decoded = undefined;
  }
  const parsed = cursorSchema.safeParse(decoded);
  if (!parsed.success) {
    throw new InvalidArgument(
      'cursor is not a cursor this tool issued: pass next_cursor from the previous list_requests answer unchanged, or omit it for the first page.',
    );
  }
  if (parsed.data.f !== filterKey(args)) {
    throw new InvalidArgument(
      'cursor was issued for other filters: repeat stage, status, product and requester exactly as in the call that returned it, or omit cursor to start over.',
    );
  }
  return parsed.data.after;
};

const summary = (state: RequestState): z.infer<typeof summarySchema> => {
  const { uri, pendingProposal } = requestDocument(state);
  return {
    request_id: state.requestId,
    uri,
    title: state.title,
    product: state.product,
    requester: state.requester,
    priority: state.priority,
    stage: state.stage,
    status: state.status,
    pending_proposal: pendingProposal
      ? {
          proposal_id: pendingProposal.proposalId,
          to_stage: pendingProposal.toStage,
          pull_url: pendingProposal.pullUrl,
        }
      : null,
    intake_issue_url: state.intakeIssue?.url ?? null,
    updated_at: state.updatedAt,
  };
};

export const listRequestsTool = defineTool({
  name: 'list_requests',
  title: 'List requests',
  description:
    'Lists requests (newest ids last) with their stage, status, product, priority and any pending stage proposal, from the read model. Filter by stage, status, product or requester; page with cursor/next_cursor (next_cursor is null on the last page). Use get_request for one request in full, get_dod for what a stage needs.',
  input,
  output,
  annotations: READ_ONLY,
  access: 'read',
  icon: 'data:image/svg+xml;utf8,<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M4 6h16M4 12h16M4 18h16" stroke="currentColor" stroke-width="2"/></svg>',
  handler: async (args, { services, scope, caller }) => {
    if (args.product !== undefined)
      requireProduct(scope, args.product, `${caller.actor} may not list requests`);
    const limit = args.limit ?? DEFAULT_LIMIT;
    // One extra row tells whether another page exists.
    const page = await services.requestsRead.list(scope, {
      stage: args.stage,
      status: args.status,
      product: args.product,
      requester: args.requester,
      afterId: args.cursor === undefined ? undefined : decodeCursor(args, args.cursor),
      limit: limit + 1,
    });
    const results = page.slice(0, limit);
    const last = results.at(-1);
    return {
      results: results.map(summary),
      next_cursor: page.length > limit && last ? encodeCursor(args, last.requestId) : null,
    };
  },
  render: (result) =>
    [
      result.results.length === 0 ? 'No requests match.' : `${result.results.length} request(s):`,
      ...result.results.map(
        (r) =>
          `- ${r.request_id} [${r.stage}/${r.status}] ${r.title} (${r.product}, ${r.priority})${
            r.pending_proposal
              ? ` — pending ${r.pending_proposal.proposal_id} → ${r.pending_proposal.to_stage}`
              : ''
          }`,
      ),
      result.next_cursor ? `More: call again with cursor "${result.next_cursor}".` : '',
    ]
      .filter((line) => line !== '')
      .join('\n'),
});
