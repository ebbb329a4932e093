import type { IncomingMessage, ServerResponse } from 'node:http';
import { Webhooks } from '@octokit/webhooks';
import { v5 as uuidv5 } from 'uuid';
import { z } from 'zod';
import { WrongExpectedVersion } from '../event-store/errors.js';
import type { EventStore } from '../event-store/types.js';
import type { CommandMetadata } from '../commands/metadata.js';
import type {
  CommandResult,
  IntakeDecisionInput,
  ProposalDecisionInput,
  RequestCommandHandlers,
} from '../requests/commands.js';
import type { Secret } from '../runtime/config.js';
import { isCogitaveError } from '../runtime/errors.js';
import type { Logger } from '../runtime/logger.js';
import type { GovernanceService } from '../governance/service.js';
import { recordDivergence, type RepositoryDivergedData } from '../governance/divergence.js';
import { requestStreamId } from '../requests/events.js';
import { findProposal } from '../requests/fold.js';
import {
  INTAKE_LABEL,
  isRequestId,
  markerIn,
  proposalIdOfBranch,
  requestIdOfProposal,
  restoreBranchOf,
} from './markers.js';
import { foldRequestStream } from './render.js';

/**
 * POST /webhooks/github: applies maintainers' decisions made on GitHub.
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
 * A delivery (`X-GitHub-Delivery`, reused by redeliveries) is applied at most once: after its
 * command, `GitHubDeliveryApplied` is appended to `github-delivery-<id>` with `no_stream`, and a
 * delivery whose stream exists answers "already applied". The command id is derived from the
 * delivery id, so a crash between the command and that record makes the redelivered command a
 * no-op rather than a second decision.
 */
export const WEBHOOK_PATH = '/webhooks/github';
export const DELIVERY_EVENT_TYPE = 'GitHubDeliveryApplied';
export const deliveryStreamId = (deliveryId: string): string => `github-delivery-${deliveryId}`;

/** Namespace of command and event ids derived from delivery ids. */
const DELIVERY_NAMESPACE = '8c3f2a4e-2d7b-5e61-b0a9-4f5d6c7e8a90';
/** GitHub caps payloads at 25 MB. */
const MAX_BODY_BYTES = 25 * 1024 * 1024;
const DELIVERY_ID = /^[A-Za-z0-9-]{1,100}$/;

export interface GitHubDeliveryApplied {
  readonly type: typeof DELIVERY_EVENT_TYPE;
  readonly data: {
    readonly deliveryId: string;
    readonly event: string;
    readonly action: string;
    readonly command: Decision['command'];
    readonly requestId: string;
    readonly proposalId?: string;
    /** Revision of the request stream after the command. */
    readonly requestRevision: string;
  };
}

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

export type HeaderValue = string | readonly string[] | undefined;

export interface WebhookRequest {
  /** Lower-case header names, as node gives them. */
  readonly headers: Readonly<Record<string, HeaderValue>>;
  /** The body exactly as received: the signature covers these bytes. */
  readonly rawBody: string;
}

export interface WebhookResponse {
  readonly status: number;
  readonly body: Readonly<Record<string, unknown>>;
}

/** Matches the HTTP server's route shape. */
/**
 * The receiver as a route of the gateway's HTTP server (which applies its edge policy, the
 * method and the body limit, and refuses an oversized body with 413 before reading it).
 */
export interface WebhookRoute {
  readonly path: string;
  readonly methods: readonly string[];
  readonly maxBodyBytes: number;
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

// Only the fields we read; everything else in the payload is left alone.
const userSchema = z.object({ login: z.string().min(1) });
const repositorySchema = z.object({ full_name: z.string(), default_branch: z.string().optional() });
const pullRequestClosedSchema = z.object({
  action: z.enum(['closed', 'reopened']),
  repository: repositorySchema,
  sender: userSchema,
  pull_request: z.object({
    number: z.number(),
    merged: z.boolean().nullable().optional(),
    merged_by: userSchema.nullable().optional(),
    merge_commit_sha: z.string().nullable().optional(),
    head: z.object({ ref: z.string(), repo: z.object({ full_name: z.string() }).nullable() }),
    base: z.object({ ref: z.string() }),
  }),
});
const issueClosedSchema = z.object({
  action: z.literal('closed'),
  repository: repositorySchema,
  sender: userSchema,
  issue: z.object({
    number: z.number(),
    body: z.string().nullable().optional(),
    state_reason: z.string().nullable().optional(),
    labels: z.array(z.object({ name: z.string() })).optional(),
  }),
});

const deleteSchema = z.object({
  ref: z.string(),
  ref_type: z.string(),
  repository: repositorySchema,
  sender: userSchema,
});
const pushSchema = z.object({
  ref: z.string(),
  before: z.string().optional(),
  after: z.string(),
  created: z.boolean().optional(),
  deleted: z.boolean().optional(),
  forced: z.boolean().optional(),
  repository: repositorySchema,
  // Who pushed, as git names them; `sender` is the GitHub account.
  pusher: z.object({ name: z.string() }).optional(),
  sender: userSchema,
  commits: z
    .array(
      z.object({
        added: z.array(z.string()).optional(),
        modified: z.array(z.string()).optional(),
        removed: z.array(z.string()).optional(),
      }),
    )
    .optional(),
});
const REQUEST_FILE = /^requests\/([A-Za-z0-9-]+)\.md$/;
const HEADS = 'refs/heads/';

/** Facts about the repository, recorded for the reactor to reconcile (divergence.ts). */
type Facts =
  { readonly facts: readonly RepositoryDivergedData[] } | { readonly ignore: string } | undefined;

type Decision =
  | {
      readonly command: 'approveProposal';
      readonly input: ProposalDecisionInput;
      readonly actor: string;
      readonly pullNumber: number;
    }
  | {
      readonly command: 'rejectProposal';
      readonly input: ProposalDecisionInput;
      readonly actor: string;
    }
  | {
      readonly command: 'recordReopen';
      readonly input: { readonly requestId: string; readonly proposalId: string };
      readonly actor: string;
      readonly pullNumber: number;
    }
  | {
      readonly command: 'rejectIntake';
      readonly input: IntakeDecisionInput;
      readonly actor: string;
    };

type Routed = Decision | { readonly ignore: string };

const header = (headers: WebhookRequest['headers'], name: string): string | undefined => {
  const value = headers[name];
  return typeof value === 'string' ? value : value?.[0];
};

const sameRepository = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

const problem = (status: number, title: string, detail: string): WebhookResponse => ({
  status,
  body: { type: 'about:blank', title, status, detail },
});

export const createWebhookReceiver = (options: WebhookReceiverOptions): WebhookReceiver => {
  const { eventStore, handlers } = options;
  const logger = options.logger.child({ component: 'github-webhooks' });
  const clock = options.clock ?? (() => new Date());
  const webhooks = new Webhooks({ secret: options.secret.reveal() });

  const route = (name: string, payload: unknown): Routed => {
    if (name === 'pull_request') {
      const parsed = pullRequestClosedSchema.safeParse(payload);
      if (!parsed.success) return { ignore: 'not a pull_request.closed or .reopened delivery' };
      const { repository, pull_request: pull, sender } = parsed.data;
      if (!sameRepository(repository.full_name, options.repository)) {
        return { ignore: `repository ${repository.full_name} is not ${options.repository}` };
      }
      const proposalId = proposalIdOfBranch(pull.head.ref);
      const requestId = proposalId === undefined ? undefined : requestIdOfProposal(proposalId);
      if (proposalId === undefined || requestId === undefined) {
        return { ignore: `branch ${pull.head.ref} is not a proposal branch` };
      }
      if (!pull.head.repo || !sameRepository(pull.head.repo.full_name, options.repository)) {
        return { ignore: 'the head branch lives in another repository (a fork)' };
      }
      const base = options.baseBranch ?? repository.default_branch;
      if (base !== undefined && pull.base.ref !== base) {
        return { ignore: `pull request #${pull.number} targets ${pull.base.ref}, not ${base}` };
      }
      if (parsed.data.action === 'reopened') {
        return {
          command: 'recordReopen',
          actor: sender.login,
          pullNumber: pull.number,
          input: { requestId, proposalId },
        };
      }
      if (pull.merged === true) {
        const by = pull.merged_by?.login ?? sender.login;
        return {
          command: 'approveProposal',
          actor: by,
          pullNumber: pull.number,
          input: {
            requestId,
            proposalId,
            decidedBy: by,
            via: 'github',
            mergeCommitSha: pull.merge_commit_sha ?? null,
            reason: `pull request #${pull.number} merged`,
          },
        };
      }
      return {
        command: 'rejectProposal',
        actor: sender.login,
        input: {
          requestId,
          proposalId,
          decidedBy: sender.login,
          via: 'github',
          reason: `pull request #${pull.number} closed without merging`,
        },
      };
    }
    if (name === 'issues') {
      const parsed = issueClosedSchema.safeParse(payload);
      if (!parsed.success) return { ignore: 'not an issues.closed delivery' };
      const { repository, issue, sender } = parsed.data;
      if (!sameRepository(repository.full_name, options.repository)) {
        return { ignore: `repository ${repository.full_name} is not ${options.repository}` };
      }
      const requestId = markerIn(issue.body, 'request');
      const labelled = issue.labels?.some((label) => label.name === INTAKE_LABEL) ?? false;
      if (requestId === undefined || !labelled) {
        return { ignore: `issue #${issue.number} is not an intake issue` };
      }
      if (issue.state_reason !== 'not_planned') {
        return {
          ignore: `issue #${issue.number} closed as ${issue.state_reason ?? 'completed'}, not as not planned`,
        };
      }
      return {
        command: 'rejectIntake',
        actor: sender.login,
        input: {
          requestId,
          decidedBy: sender.login,
          via: 'github',
          reason: `issue #${issue.number} closed as not planned`,
        },
      };
    }
    return { ignore: `${name} deliveries are not used` };
  };

  /** A restore pull request closed unmerged, or its branch deleted: the file stays wrong. */
  const abandonedRestore = (
    branch: string,
    by: string,
    pullNumber: number | null,
  ): RepositoryDivergedData | undefined => {
    const restore = restoreBranchOf(branch);
    if (!restore) return undefined;
    return {
      requestId: restore.requestId,
      proposalId: restore.proposalId,
      kind: 'restore_abandoned',
      pullNumber,
      by,
      mergeCommitSha: null,
      branch,
      reason:
        pullNumber === null
          ? `restore branch ${branch} deleted by ${by}`
          : `restore pull request #${pullNumber} (${branch}) closed without merging by ${by}`,
    };
  };

  /**
   * A push to a proposal branch. Its head differs from the commit the reactor made (and
   * recorded) → someone else's commits ride on the proposal. Pushes that add nothing (the
   * branch's creation at an existing commit), the reactor's own commit, and branches of
   * proposals already decided tell nothing and are ignored.
   */
  const proposalBranchPush = async (
    push: z.infer<typeof pushSchema>,
    proposalId: string,
    requestId: string,
  ): Promise<Facts> => {
    const branch = push.ref.slice(HEADS.length);
    if (push.deleted === true) return { ignore: `${branch} deleted (the delete delivery decides)` };
    if (push.created === true && (push.commits ?? []).length === 0) {
      return { ignore: `${branch} created at an existing commit: nothing pushed onto it` };
    }
    const view = foldRequestStream(await eventStore.readStream(requestStreamId(requestId)));
    const proposal = view && findProposal(view, proposalId);
    if (!proposal) return { ignore: `proposal ${proposalId} is not in the log` };
    if (proposal.outcome !== 'pending') {
      return { ignore: `proposal ${proposalId} is ${proposal.outcome} already` };
    }
    if (proposal.pullRequest?.headSha === push.after) {
      return { ignore: `${push.after} is the commit the reactor made on ${branch}` };
    }
    const pusher = push.pusher?.name;
    return {
      facts: [
        {
          requestId,
          proposalId,
          kind: 'proposal_branch_pushed',
          pullNumber: proposal.pullRequest?.pullNumber ?? null,
          by: push.sender.login,
          mergeCommitSha: push.after,
          branch,
          reason: `a ${push.forced === true ? 'force ' : ''}push by ${push.sender.login}${pusher !== undefined && pusher !== push.sender.login ? ` (as ${pusher})` : ''} moved ${branch} to ${push.after}, which is not the commit the reactor made for ${proposalId}`,
        },
      ],
    };
  };

  /** `delete` and `push` deliveries (and restore pull requests): what they tell, if anything. */
  const facts = async (name: string, payload: unknown): Promise<Facts> => {
    if (name === 'pull_request') {
      // Restore pull requests only; proposals' are decisions (route).
      const parsed = pullRequestClosedSchema.safeParse(payload);
      if (!parsed.success || restoreBranchOf(parsed.data.pull_request.head.ref) === undefined) {
        return undefined;
      }
      const { repository, pull_request: pull, sender, action } = parsed.data;
      if (!sameRepository(repository.full_name, options.repository)) {
        return { ignore: `repository ${repository.full_name} is not ${options.repository}` };
      }
      if (!pull.head.repo || !sameRepository(pull.head.repo.full_name, options.repository)) {
        return { ignore: 'the head branch lives in another repository (a fork)' };
      }
      if (action !== 'closed') return { ignore: `restore pull request #${pull.number} ${action}` };
      if (pull.merged === true) {
        return {
          ignore: `restore pull request #${pull.number} merged: the request file is back`,
        };
      }
      const fact = abandonedRestore(pull.head.ref, sender.login, pull.number);
      return fact ? { facts: [fact] } : undefined;
    }
    if (name === 'delete') {
      const parsed = deleteSchema.safeParse(payload);
      if (!parsed.success) return { ignore: 'not a delete delivery' };
      const { ref, ref_type: refType, repository, sender } = parsed.data;
      if (!sameRepository(repository.full_name, options.repository)) {
        return { ignore: `repository ${repository.full_name} is not ${options.repository}` };
      }
      const restore = refType === 'branch' ? abandonedRestore(ref, sender.login, null) : undefined;
      if (restore) return { facts: [restore] };
      const proposalId = refType === 'branch' ? proposalIdOfBranch(ref) : undefined;
      const requestId = proposalId === undefined ? undefined : requestIdOfProposal(proposalId);
      if (proposalId === undefined || requestId === undefined) {
        return { ignore: `${refType} ${ref} is not a proposal branch` };
      }
      return {
        facts: [
          {
            requestId,
            proposalId,
            kind: 'branch_deleted',
            pullNumber: null,
            by: sender.login,
            mergeCommitSha: null,
            reason: `branch ${ref} deleted by ${sender.login}`,
          },
        ],
      };
    }
    if (name === 'push') {
      const parsed = pushSchema.safeParse(payload);
      if (!parsed.success) return { ignore: 'not a push delivery' };
      const { ref, repository, sender, after, commits } = parsed.data;
      if (!sameRepository(repository.full_name, options.repository)) {
        return { ignore: `repository ${repository.full_name} is not ${options.repository}` };
      }
      const proposalId = ref.startsWith(HEADS)
        ? proposalIdOfBranch(ref.slice(HEADS.length))
        : undefined;
      const proposalRequestId =
        proposalId === undefined ? undefined : requestIdOfProposal(proposalId);
      if (proposalId !== undefined && proposalRequestId !== undefined) {
        return proposalBranchPush(parsed.data, proposalId, proposalRequestId);
      }
      const base = options.baseBranch ?? repository.default_branch;
      if (base === undefined || ref !== `${HEADS}${base}` || parsed.data.deleted === true) {
        return { ignore: `a push to ${ref}, not to the base branch` };
      }
      const requestIds = new Set<string>();
      for (const commit of commits ?? []) {
        for (const path of [
          ...(commit.added ?? []),
          ...(commit.modified ?? []),
          ...(commit.removed ?? []),
        ]) {
          const requestId = REQUEST_FILE.exec(path)?.[1];
          if (requestId !== undefined && isRequestId(requestId)) requestIds.add(requestId);
        }
      }
      if (requestIds.size === 0) return { ignore: 'the push changes no request file' };
      return {
        facts: [...requestIds].map((requestId) => ({
          requestId,
          proposalId: null,
          kind: 'file_changed' as const,
          pullNumber: null,
          by: sender.login,
          mergeCommitSha: after,
          reason: `a push by ${sender.login} (${after}) changed requests/${requestId}.md`,
        })),
      };
    }
    return undefined;
  };

  const recordFacts = async (
    deliveryId: string,
    found: readonly RepositoryDivergedData[],
  ): Promise<void> => {
    for (const fact of found) {
      await recordDivergence(eventStore, fact, {
        commandId: uuidv5(`${deliveryId}:${fact.kind}:${fact.requestId}`, DELIVERY_NAMESPACE),
        actor: `github:${fact.by}`,
        at: clock().toISOString(),
        correlationId: deliveryId,
        causationId: deliveryId,
      });
    }
  };

  const run = (
    decision: Decision,
    meta: CommandMetadata,
  ): Promise<CommandResult & { counted?: boolean; reason?: string }> => {
    switch (decision.command) {
      case 'rejectIntake':
        return handlers.rejectIntake(decision.input, meta);
      case 'rejectProposal':
        return handlers.rejectProposal(decision.input, meta);
      case 'recordReopen':
        return options.governance.applyReopen(
          { ...decision.input, pullNumber: decision.pullNumber, reopenedBy: decision.actor },
          meta,
        );
      case 'approveProposal':
        return options.governance.applyMerge(
          {
            requestId: decision.input.requestId,
            proposalId: decision.input.proposalId,
            mergedBy: decision.input.decidedBy,
            pullNumber: decision.pullNumber,
            mergeCommitSha: decision.input.mergeCommitSha ?? null,
          },
          meta,
        );
    }
  };

  const runCommand = async (
    decision: Decision,
    meta: CommandMetadata,
  ): Promise<CommandResult & { counted?: boolean; reason?: string }> => {
    // A concurrent writer (the reactor recording the pull request) can move the stream between
    // load and append; deciding again on the new revision is the fix.
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await run(decision, meta);
      } catch (error) {
        const moved = isCogitaveError(error) && error.code === 'WRONG_EXPECTED_VERSION';
        if (!moved || attempt >= 3) throw error;
      }
    }
  };

  const unsigned = (): WebhookResponse =>
    problem(401, 'Unauthorized', 'X-Hub-Signature-256 is missing; configure the webhook secret');

  const alreadyApplied = async (deliveryId: string): Promise<boolean> =>
    (await eventStore.readStream(deliveryStreamId(deliveryId), { maxCount: 1 })).length > 0;

  const receive = async (request: WebhookRequest): Promise<WebhookResponse> => {
    const signature = header(request.headers, 'x-hub-signature-256');
    if (!signature) return unsigned();
    const valid = await webhooks.verify(request.rawBody, signature).catch(() => false);
    if (!valid) {
      logger.warn(
        { delivery: header(request.headers, 'x-github-delivery') },
        'webhook signature mismatch',
      );
      return problem(401, 'Unauthorized', 'X-Hub-Signature-256 does not match the body');
    }
    const name = header(request.headers, 'x-github-event');
    const deliveryId = header(request.headers, 'x-github-delivery');
    if (!name || !deliveryId || !DELIVERY_ID.test(deliveryId)) {
      return problem(
        400,
        'Bad Request',
        'X-GitHub-Event and a valid X-GitHub-Delivery are required',
      );
    }
    let payload: unknown;
    try {
      payload = JSON.parse(request.rawBody);
    } catch {
      return problem(400, 'Bad Request', 'the body is not JSON');
    }
    const action = (payload as { action?: unknown } | null)?.action;
    const log = logger.child({ delivery: deliveryId, event: name, action });
    if (name === 'ping') return { status: 200, body: { status: 'pong' } };

    let told: Facts;
    try {
      told = await facts(name, payload);
    } catch (error) {
      log.error({ err: error }, 'webhook: reading the log failed');
      return problem(503, 'Service Unavailable', 'not recorded now; redeliver it later');
    }
    if (told !== undefined) {
      if ('ignore' in told) {
        log.debug({ reason: told.ignore }, 'webhook ignored');
        return { status: 200, body: { status: 'ignored', reason: told.ignore } };
      }
      try {
        await recordFacts(deliveryId, told.facts);
      } catch (error) {
        log.error({ err: error }, 'webhook: recording the repository change failed');
        return problem(503, 'Service Unavailable', 'not recorded now; redeliver it later');
      }
      const kinds = [...new Set(told.facts.map((fact) => fact.kind))];
      const requestIds = told.facts.map((fact) => fact.requestId);
      log.info({ kinds, requestIds }, 'webhook: repository change recorded');
      return { status: 200, body: { status: 'recorded', kinds, requestIds } };
    }
    const routed = route(name, payload);
    if ('ignore' in routed) {
      log.debug({ reason: routed.ignore }, 'webhook ignored');
      return { status: 200, body: { status: 'ignored', reason: routed.ignore } };
    }
    const subject = {
      command: routed.command,
      requestId: routed.input.requestId,
      ...('proposalId' in routed.input ? { proposalId: routed.input.proposalId } : {}),
    };
    if (await alreadyApplied(deliveryId)) {
      log.info(subject, 'webhook delivery already applied');
      return { status: 200, body: { status: 'already applied', ...subject } };
    }
    const meta: CommandMetadata = {
      commandId: uuidv5(`${deliveryId}:${routed.command}`, DELIVERY_NAMESPACE),
      actor: `github:${routed.actor}`,
      at: clock().toISOString(),
      correlationId: deliveryId,
      causationId: deliveryId,
    };
    let result: CommandResult & { counted?: boolean; reason?: string };
    try {
      result = await runCommand(routed, meta);
    } catch (error) {
      const retryable = ['UNAVAILABLE', 'INTERNAL', 'WRONG_EXPECTED_VERSION'];
      if (isCogitaveError(error) && !retryable.includes(error.code)) {
        // A refused command (the merger proposed it, the proposal was decided already, the
        // request is unknown) answers 2xx: GitHub treats any other status as a failed
        // delivery and it would be redelivered, refused again, forever. Nothing is appended;
        // the reason is logged and returned for the delivery log on GitHub.
        log.warn(
          { ...subject, code: error.code, reason: error.message },
          'webhook command refused',
        );
        return { status: 200, body: { status: 'refused', ...subject, reason: error.message } };
      }
      log.error({ ...subject, err: error }, 'webhook command failed');
      return problem(
        503,
        'Service Unavailable',
        'the decision could not be applied now; redeliver it later',
      );
    }
    const recorded: GitHubDeliveryApplied['data'] = {
      deliveryId,
      event: name,
      action: typeof action === 'string' ? action : '',
      ...subject,
      requestRevision: result.revision.toString(),
    };
    try {
      await eventStore.append(
        deliveryStreamId(deliveryId),
        [
          {
            id: uuidv5(`${deliveryId}:recorded`, DELIVERY_NAMESPACE),
            type: DELIVERY_EVENT_TYPE,
            data: recorded,
            metadata: {
              actor: meta.actor,
              at: meta.at,
              correlationId: deliveryId,
              causationId: deliveryId,
            },
          },
        ],
        { expectedRevision: 'no_stream' },
      );
    } catch (error) {
      // A concurrent copy of this delivery recorded it first: same outcome.
      if (!(error instanceof WrongExpectedVersion)) throw error;
    }
    if (result.counted === false) {
      // Recorded (the proposal ended, or the divergence): the reactor comments and reconciles.
      const status = routed.command === 'recordReopen' ? 'reopen recorded' : 'not counted';
      log.warn({ ...subject, reason: result.reason }, `webhook: ${status}`);
      return { status: 200, body: { status, ...subject, reason: result.reason } };
    }
    if (routed.command === 'recordReopen') {
      return { status: 200, body: { status: 'nothing to reconcile', ...subject } };
    }
    log.info({ ...subject, revision: recorded.requestRevision }, 'webhook applied');
    return { status: 200, body: { status: 'applied', ...subject } };
  };

  const send = (res: ServerResponse, response: WebhookResponse): void => {
    res.writeHead(response.status, {
      'content-type': response.status >= 400 ? 'application/problem+json' : 'application/json',
      'cache-control': 'no-store',
    });
    res.end(JSON.stringify(response.body));
  };

  return {
    receive,
    route: {
      path: WEBHOOK_PATH,
      methods: ['POST'],
      maxBodyBytes: MAX_BODY_BYTES,
      handle: async (req, res, context) => {
        const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (type !== 'application/json') {
          send(
            res,
            problem(
              415,
              'Unsupported Media Type',
              'configure the GitHub webhook with content type application/json',
            ),
          );
          return;
        }
        // Unsigned deliveries are refused before a byte of their body is read.
        if (!header(req.headers, 'x-hub-signature-256')) {
          send(res, unsigned());
          return;
        }
        const rawBody = (await context.readBody()).toString('utf8');
        send(res, await receive({ headers: req.headers, rawBody }));
      },
    },
  };
};
