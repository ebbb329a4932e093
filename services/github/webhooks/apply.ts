import type { CommandMetadata } from '../../commands/metadata.js';
import type { EventStore } from '../../event-store/types.js';
import {
  openDivergenceLog,
  recordDivergence,
  type RepositoryDivergedData,
} from '../../governance/divergence.js';
import type { GovernanceService } from '../../governance/service.js';
import type { CommandResult, RequestCommandHandlers } from '../../requests/commands.js';
import { requestStreamId } from '../../requests/events.js';
import { findProposal, type ProposalRecord } from '../../requests/fold.js';
import { isCogitaveError } from '../../runtime/errors.js';
import type { Logger } from '../../runtime/logger.js';
import { foldRequestStream } from '../render.js';
import {
  deliveryApplied,
  deliveryUuid,
  openDeliveryLog,
  recordDeliveryApplied,
  type GitHubDeliveryApplied,
} from './deliveries.js';
import type { Decision } from './facts.js';
import { problem, type VerifiedDelivery, type WebhookResponse } from './verify.js';

/**
 * The last step of a delivery: what it tells is applied. A decision goes through the requests
 * handlers or, for a merge or a reopen, the governance service, once per delivery (delivery
 * bookkeeping, deliveries.ts); facts about the repository are recorded as `RepositoryDiverged`
 * once per delivery (event ids derive from it), without a delivery record.
 */
export interface DeliveryApplierOptions {
  readonly eventStore: EventStore;
  readonly handlers: RequestCommandHandlers;
  /** Merges go through governance: approved, or recorded as not counting. */
  readonly governance: Pick<GovernanceService, 'applyMerge' | 'applyReopen'>;
  readonly clock: () => Date;
}

export interface DeliveryApplier {
  /** The proposal as the log holds it now (reads the log). */
  proposalOf(requestId: string, proposalId: string): Promise<ProposalRecord | undefined>;
  recordFacts(
    delivery: VerifiedDelivery,
    facts: readonly RepositoryDivergedData[],
    log: Logger,
  ): Promise<WebhookResponse>;
  applyDecision(
    delivery: VerifiedDelivery,
    decision: Decision,
    log: Logger,
  ): Promise<WebhookResponse>;
}

type DecisionResult = CommandResult & { counted?: boolean; reason?: string };

/** Codes of a command that failed for now, not refused: the delivery is to be redelivered. */
const RETRYABLE = ['UNAVAILABLE', 'INTERNAL', 'WRONG_EXPECTED_VERSION'];

const unavailable = (detail: string): WebhookResponse =>
  problem(503, 'Service Unavailable', detail);

const subjectOf = (decision: Decision) => ({
  command: decision.command,
  requestId: decision.input.requestId,
  ...('proposalId' in decision.input ? { proposalId: decision.input.proposalId } : {}),
});

export const createDeliveryApplier = (options: DeliveryApplierOptions): DeliveryApplier => {
  const { eventStore, handlers, governance, clock } = options;
  const divergences = openDivergenceLog(eventStore);
  const deliveries = openDeliveryLog(eventStore);

  const run = (decision: Decision, meta: CommandMetadata): Promise<DecisionResult> => {
    switch (decision.command) {
      case 'rejectIntake':
        return handlers.rejectIntake(decision.input, meta);
      case 'rejectProposal':
        return handlers.rejectProposal(decision.input, meta);
      case 'recordReopen':
        return governance.applyReopen(
          { ...decision.input, pullNumber: decision.pullNumber, reopenedBy: decision.actor },
          meta,
        );
      case 'approveProposal':
        return governance.applyMerge(
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

  const runWithRetry = async (
    decision: Decision,
    meta: CommandMetadata,
  ): Promise<DecisionResult> => {
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

  const recordFacts: DeliveryApplier['recordFacts'] = async ({ deliveryId }, facts, log) => {
    try {
      for (const fact of facts) {
        await recordDivergence(divergences, fact, {
          commandId: deliveryUuid(`${deliveryId}:${fact.kind}:${fact.requestId}`),
          actor: `github:${fact.by}`,
          at: clock().toISOString(),
          correlationId: deliveryId,
          causationId: deliveryId,
        });
      }
    } catch (error) {
      log.error({ err: error }, 'webhook: recording the repository change failed');
      return unavailable('not recorded now; redeliver it later');
    }
    const kinds = [...new Set(facts.map((fact) => fact.kind))];
    const requestIds = facts.map((fact) => fact.requestId);
    log.info({ kinds, requestIds }, 'webhook: repository change recorded');
    return { status: 200, body: { status: 'recorded', kinds, requestIds } };
  };

  const applyDecision: DeliveryApplier['applyDecision'] = async (delivery, decision, log) => {
    const { deliveryId, name, action } = delivery;
    const subject = subjectOf(decision);
    if (await deliveryApplied(eventStore, deliveryId)) {
      log.info(subject, 'webhook delivery already applied');
      return { status: 200, body: { status: 'already applied', ...subject } };
    }
    const meta: CommandMetadata = {
      commandId: deliveryUuid(`${deliveryId}:${decision.command}`),
      actor: `github:${decision.actor}`,
      at: clock().toISOString(),
      correlationId: deliveryId,
      causationId: deliveryId,
    };
    let result: DecisionResult;
    try {
      result = await runWithRetry(decision, meta);
    } catch (error) {
      if (isCogitaveError(error) && !RETRYABLE.includes(error.code)) {
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
      return unavailable('the decision could not be applied now; redeliver it later');
    }
    const recorded: GitHubDeliveryApplied['data'] = {
      deliveryId,
      event: name,
      action: typeof action === 'string' ? action : '',
      ...subject,
      requestRevision: result.revision.toString(),
    };
    await recordDeliveryApplied(deliveries, recorded, meta);
    if (result.counted === false) {
      // Recorded (the proposal ended, or the divergence): the reactor comments and reconciles.
      const status = decision.command === 'recordReopen' ? 'reopen recorded' : 'not counted';
      log.warn({ ...subject, reason: result.reason }, `webhook: ${status}`);
      return { status: 200, body: { status, ...subject, reason: result.reason } };
    }
    if (decision.command === 'recordReopen') {
      return { status: 200, body: { status: 'nothing to reconcile', ...subject } };
    }
    log.info({ ...subject, revision: recorded.requestRevision }, 'webhook applied');
    return { status: 200, body: { status: 'applied', ...subject } };
  };

  return {
    proposalOf: async (requestId, proposalId) => {
      const view = foldRequestStream(await eventStore.readStream(requestStreamId(requestId)));
      return view ? findProposal(view, proposalId) : undefined;
    },
    recordFacts,
    applyDecision,
  };
};
