import { z } from 'zod';
import { evidenceSchema } from '../../lifecycle/evidence.js';
import { STAGES } from '../../lifecycle/stages.js';
import {
  getRequest,
  getRequestHistory,
  requestDocument,
  type RequestState,
} from '../../projections/index.js';
import { evolveRequest, summarize } from '../../projections/requests/state.js';
import { isPosition } from '../../services/event-store/position.js';
import type { RecordedEvent } from '../../services/event-store/types.js';
import { RequestNotFound } from '../../services/requests/errors.js';
import { REQUEST_EVENT_TYPES, type RequestEvent } from '../../services/requests/events.js';
import { loadRequestAsOf, loadRequestHistory } from '../../services/requests/time-travel.js';
import { CogitaveError } from '../../services/runtime/errors.js';
import { type Caller, defineTool, READ_ONLY } from '../registry.js';

/**
 * `get_request`: one request as the read model shows it now, or — with `as_of` — as it stood
 * at a log position or an instant, folded from its stream (time travel). Both answers carry
 * the request document (the same one `resources/read` serves) and its ordered history.
 *
 * Also home of what the other request tools share: the request id and stage schemas, the
 * document schema and the read-grant check.
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

/** Who may read a request: the `request` type and the request's product must be granted. */
export const assertMayRead = (caller: Caller, requestId: string, product: string): void => {
  const { types, products } = caller.grants;
  if (types !== '*' && !types.includes('request')) {
    throw new CogitaveError(
      'PERMISSION_DENIED',
      `${caller.actor} may not read requests: the token's grants do not include the "request" type.`,
      { requestId },
    );
  }
  if (products !== '*' && !products.includes(product)) {
    throw new CogitaveError(
      'PERMISSION_DENIED',
      `${caller.actor} may not read request ${requestId}: the token's grants cover products ${products.join(', ') || '(none)'}.`,
      { requestId },
    );
  }
};

/** The read model's state, or RequestNotFound; the read grant checked. */
export const readRequest = async (
  db: Parameters<typeof getRequest>[0],
  caller: Caller,
  requestId: string,
): Promise<RequestState> => {
  const state = await getRequest(db, requestId);
  if (!state) throw new RequestNotFound(requestId);
  assertMayRead(caller, requestId, state.product);
  return state;
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

const output = z.object({
  request_id: z.string(),
  /** Echo of the argument; null for the current state. */
  as_of: z.string().nullable(),
  /** `read_model` (now) or `event_stream` (time travel). */
  source: z.enum(['read_model', 'event_stream']),
  request: requestDocumentSchema,
  /** Every event of the request up to the view, oldest first, with actors and chain hashes. */
  history: z.array(historyEntrySchema),
});

type Output = z.infer<typeof output>;

const isRequestEvent = (type: string): type is RequestEvent['type'] =>
  (REQUEST_EVENT_TYPES as readonly string[]).includes(type);

/** Time travel: the same document as the read model would have shown at that point. */
const asOfView = async (
  eventStore: Parameters<typeof loadRequestAsOf>[0],
  requestId: string,
  asOf: string,
): Promise<{ state: RequestState; history: Output['history'] }> => {
  const view = await loadRequestAsOf(
    eventStore,
    requestId,
    isPosition(asOf) ? { position: asOf } : { at: asOf },
  );
  if (view.revision === null) {
    throw new CogitaveError(
      'NOT_FOUND',
      `Request ${requestId} did not exist yet as of ${asOf}: its first event is later. Use a later as_of, or omit it for the current state.`,
      { requestId, asOf },
    );
  }
  // Time travel decides the cut (the last event included); the stream is read once more for
  // the recorded events, which carry the hashes and positions the history shows.
  const included = (await loadRequestHistory(eventStore, requestId)).filter(
    (entry) => entry.revision <= (view.revision ?? -1n),
  );
  let state: RequestState | undefined;
  const history: Output['history'] = [];
  for (const entry of included) {
    if (!isRequestEvent(entry.type)) continue;
    const event = { type: entry.type, data: entry.data } as RequestEvent;
    const recorded = {
      revision: entry.revision,
      position: entry.position,
      metadata: { at: entry.at },
    } as RecordedEvent;
    state = evolveRequest(state, recorded, event);
    history.push({
      revision: Number(entry.revision),
      position: entry.position,
      type: entry.type,
      actor: entry.actor,
      at: new Date(entry.at).toISOString(),
      hash: entry.hash,
      prevHash: entry.prevHash,
      summary: summarize(event),
    });
  }
  if (!state) throw new RequestNotFound(requestId);
  return { state, history };
};

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
    'Returns one request: its document (title, problem, product, acceptance criteria, stage, status, pending proposal with its draft PR link, accumulated evidence, intake issue) and its full history (every event with actor, time, position and hash-chain hashes). With as_of (a log position or an ISO-8601 timestamp) it returns the request as it stood then, for audits. Use list_requests to find ids.',
  input,
  output,
  annotations: READ_ONLY,
  access: 'read',
  icon: 'data:image/svg+xml;utf8,<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M6 2h9l5 5v15H6z" fill="none" stroke="currentColor" stroke-width="2"/></svg>',
  handler: async (args, { services, caller }) => {
    // The read model decides visibility first, so an unreadable request is refused even in
    // time travel.
    const current = await readRequest(services.database.pool, caller, args.request_id);
    if (args.as_of !== undefined) {
      const { state, history } = await asOfView(services.eventStore, args.request_id, args.as_of);
      return {
        request_id: args.request_id,
        as_of: args.as_of,
        source: 'event_stream' as const,
        request: documentOf(state),
        history,
      };
    }
    const history = await getRequestHistory(services.database.pool, args.request_id);
    return {
      request_id: args.request_id,
      as_of: null,
      source: 'read_model' as const,
      request: documentOf(current),
      history: history.map((entry) => ({
        revision: entry.revision,
        position: entry.position,
        type: entry.type,
        actor: entry.actor,
        at: entry.at,
        hash: entry.hash,
        prevHash: entry.prevHash,
        summary: entry.summary,
      })),
    };
  },
  render: renderRequest,
});
