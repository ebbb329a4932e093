import type { IncomingMessage, ServerResponse } from 'node:http';
import { Webhooks } from '@octokit/webhooks';
import type { EventStore } from '../event-store/types.js';
import type { GovernanceService } from '../governance/service.js';
import type { RequestCommandHandlers } from '../requests/commands.js';
import type { Secret } from '../runtime/config.js';
import { logActivity } from '../runtime/activity.js';
import type { Logger } from '../runtime/logger.js';
import { webhookActivity } from './webhooks/activity.js';
import { createDeliveryApplier } from './webhooks/apply.js';
import { factsOfProposalBranchPush, readDelivery, type DeliveryFacts } from './webhooks/facts.js';
import {
  header,
  problem,
  unsigned,
  verifyDelivery,
  type WebhookRequest,
  type WebhookResponse,
} from './webhooks/verify.js';

export {
  DELIVERY_EVENT_TYPE,
  deliveryStreamId,
  type GitHubDeliveryApplied,
} from './webhooks/deliveries.js';
export type { HeaderValue, WebhookRequest, WebhookResponse } from './webhooks/verify.js';

/**
 * POST /webhooks/github: applies maintainers' decisions made on GitHub, in three steps —
 * verify (webhooks/verify.ts: the signature over the raw body, the delivery id, the event
 * name), read (webhooks/facts.ts, pure: what the delivery tells) and apply (webhooks/apply.ts:
 * commands through the requests and governance services, delivery bookkeeping).
 *
 * - The signature (`X-Hub-Signature-256`) is checked on the raw body before anything else;
 *   missing or wrong → 401 and nothing appended.
 * - `pull_request.closed` on a proposal branch (`cogitave/<proposalId>`) of the configured
 *   repository into its base branch: merged → `approveProposal` (by `merged_by`, with the merge
 *   commit), unmerged → `rejectProposal`. Resolved by branch name, so a merge that arrives before
 *   the reactor recorded the pull request still applies.
 * - `pull_request.reopened` of a proposal that has ended → recorded (`RepositoryDiverged`); the
 *   reactor comments and closes it again. A merge after the proposal ended, or after its request
 *   closed, is recorded the same way (once per merge), and the reactor restores the request file.
 * - `issues.closed` as `not_planned` on an intake issue (marker) → `rejectIntake`.
 * - `delete` of a proposal branch → recorded (`RepositoryDiverged`, `branch_deleted`); the
 *   reactor ends the proposal unless its pull request was merged.
 * - `push` to the base branch changing `requests/<id>.md` → recorded (`file_changed`) per
 *   request; the reactor compares the file with the log and restores it when they disagree.
 * - `push` to the branch of a pending proposal whose head is not the commit the reactor
 *   recorded → recorded (`proposal_branch_pushed`, who pushed, the head); the reactor comments
 *   that a merge applies only the recorded proposal. The branch's creation (no commits) and the
 *   reactor's own commit are ignored.
 * - A restore pull request (`cogitave/restore-…`) closed unmerged, or its branch deleted →
 *   recorded (`restore_abandoned`); the reactor opens the next restore, bounded. A merged one
 *   ends the disagreement and is ignored.
 *   All of these are recorded once per delivery (event ids derive from it), without a delivery
 *   record.
 * - Anything else → 200 "ignored", nothing appended, nothing recorded.
 *
 * A delivery (`X-GitHub-Delivery`, reused by redeliveries) is applied at most once
 * (webhooks/deliveries.ts).
 */
export const WEBHOOK_PATH = '/webhooks/github';

/** GitHub caps payloads at 25 MB. */
const MAX_BODY_BYTES = 25 * 1024 * 1024;

export interface WebhookReceiverOptions {
  readonly secret: Secret;
  /** owner/name: deliveries of other repositories are ignored. */
  readonly repository: string;
  /** Unset: the repository's default branch, as the payload states it. */
  readonly baseBranch?: string | undefined;
  readonly eventStore: EventStore;
  readonly handlers: RequestCommandHandlers;
  /** Merges go through governance: approved, or recorded as not counting. */
  readonly governance: Pick<GovernanceService, 'applyMerge' | 'applyReopen'>;
  readonly logger: Logger;
  readonly clock?: () => Date;
}

/**
 * The receiver as a route of the gateway's HTTP server (which applies its edge policy, the
 * method and the body limit, and refuses an oversized body with 413 before reading it).
 */
export interface WebhookRoute {
  readonly path: string;
  readonly methods: readonly string[];
  readonly maxBodyBytes: number;
  readonly logsOwnRefusals: true;
  handle(
    req: IncomingMessage,
    res: ServerResponse,
    context: { readBody(): Promise<Buffer> },
  ): Promise<void>;
}

export interface WebhookReceiver {
  receive(request: WebhookRequest): Promise<WebhookResponse>;
  readonly route: WebhookRoute;
}

const send = (res: ServerResponse, response: WebhookResponse): void => {
  res.writeHead(response.status, {
    'content-type': response.status >= 400 ? 'application/problem+json' : 'application/json',
    'cache-control': 'no-store',
  });
  res.end(JSON.stringify(response.body));
};

export const createWebhookReceiver = (options: WebhookReceiverOptions): WebhookReceiver => {
  const logger = options.logger.child({ component: 'github-webhooks' });
  const webhooks = new Webhooks({ secret: options.secret.reveal() });
  const scope = { repository: options.repository, baseBranch: options.baseBranch };
  const applier = createDeliveryApplier({
    eventStore: options.eventStore,
    handlers: options.handlers,
    governance: options.governance,
    clock: options.clock ?? (() => new Date()),
  });

  // Every delivery answered is one activity line (webhooks/activity.ts); the HTTP server
  // leaves this route's refusals to it (`logsOwnRefusals`).
  const receive = async (request: WebhookRequest): Promise<WebhookResponse> => {
    let action: unknown;
    const response = await answer(request, (told) => {
      action = told;
    });
    const line = webhookActivity(request, response, action);
    if (line) logActivity(options.logger, line);
    return response;
  };

  const answer = async (
    request: WebhookRequest,
    onAction: (action: unknown) => void,
  ): Promise<WebhookResponse> => {
    const verified = await verifyDelivery(webhooks, request, logger);
    if ('refused' in verified) return verified.refused;
    const { delivery } = verified;
    const { name, deliveryId, payload, action } = delivery;
    onAction(action);
    const log = logger.child({ delivery: deliveryId, event: name, action });
    if (name === 'ping') return { status: 200, body: { status: 'pong' } };

    let told: DeliveryFacts = readDelivery(name, payload, scope);
    if (told.kind === 'proposal-branch-push') {
      const { requestId, proposalId } = told.push;
      try {
        told = factsOfProposalBranchPush(
          told.push,
          await applier.proposalOf(requestId, proposalId),
        );
      } catch (error) {
        log.error({ err: error }, 'webhook: reading the log failed');
        return problem(503, 'Service Unavailable', 'not recorded now; redeliver it later');
      }
    }
    switch (told.kind) {
      case 'ignored':
        log.debug({ reason: told.reason }, 'webhook ignored');
        return { status: 200, body: { status: 'ignored', reason: told.reason } };
      case 'diverged':
        return applier.recordFacts(delivery, told.facts, log);
      case 'decision':
        return applier.applyDecision(delivery, told.decision, log);
    }
  };

  return {
    receive,
    route: {
      path: WEBHOOK_PATH,
      methods: ['POST'],
      maxBodyBytes: MAX_BODY_BYTES,
      logsOwnRefusals: true,
      handle: async (req, res, context) => {
        const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        const early =
          type !== 'application/json'
            ? problem(
                415,
                'Unsupported Media Type',
                'configure the GitHub webhook with content type application/json',
              )
            : // Unsigned deliveries are refused before a byte of their body is read.
              !header(req.headers, 'x-hub-signature-256')
              ? unsigned()
              : undefined;
        if (early) {
          const line = webhookActivity({ headers: req.headers, rawBody: '' }, early, undefined);
          if (line) logActivity(options.logger, line);
          send(res, early);
          return;
        }
        const rawBody = (await context.readBody()).toString('utf8');
        send(res, await receive({ headers: req.headers, rawBody }));
      },
    },
  };
};
