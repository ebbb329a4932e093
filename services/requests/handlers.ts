import { z } from 'zod';
import type { IntakeForm } from '../../lifecycle/intake-form.js';
import { PRIORITIES } from '../../lifecycle/intake-form.js';
import { foldWholeStream, runCommand } from '../commands/handler.js';
import { parseInput } from '../commands/inputs.js';
import { eventMetadata, parseCommandMetadata, type CommandMetadata } from '../commands/metadata.js';
import { WrongExpectedVersion } from '../event-store/errors.js';
import type { EventStore, ExpectedRevision, RecordedEvent } from '../event-store/types.js';
import { createPrincipalDirectory, type PrincipalDirectory } from '../principals/principals.js';
import { CogitaveError } from '../runtime/errors.js';
import type { CommandResult, IntakeResult, RequestCommandHandlers } from './commands.js';
import { decide, requestIdOf, type RequestCommand } from './decide.js';
import { RequestChanged } from './errors.js';
import { REQUEST_EVENT_TYPES, requestStreamId, type RequestEvent } from './events.js';
import {
  intakeDecisionInputSchema,
  intakeInputSchema,
  intakeIssueInputSchema,
  maintainerWithdrawInputSchema,
  proposalDecisionInputSchema,
  proposalPullRequestInputSchema,
  stageAdvanceInputSchema,
  withdrawInputSchema,
} from './inputs.js';
import {
  createRequestIdAllocator,
  type RequestCreation,
  type RequestIdAllocation,
} from './request-ids.js';
import { parseRequestEvent } from './parse.js';
import { evolveRequest } from './fold.js';
import type { RequestState } from './state.js';

/**
 * The write side of requests: validate, then run the command (`runCommand`): fold the whole
 * stream, decide, append at the revision the decision was made on, and on a concurrent write
 * decide again on the new state. A retried command (same commandId) appends nothing new: it
 * is decided again on the history before its first event and answered with the original
 * result.
 */

export interface RequestCommandHandlerDeps {
  readonly eventStore: EventStore;
  /**
   * Who is who for four eyes (services/principals/principals.ts). Default: no table, every
   * identity is the principal its name says (`token:ada` and `github:ada` are both ada).
   */
  readonly principals?: PrincipalDirectory | undefined;
}

/** Decisions made before a request that keeps changing is reported as RequestChanged. */
const MAX_ATTEMPTS = 5;

const isRequestEventType = (type: string): type is RequestEvent['type'] =>
  (REQUEST_EVENT_TYPES as readonly string[]).includes(type);

/** A stored event, checked; an unknown type means this code is too old. */
const toRequestEvent = (event: RecordedEvent): RequestEvent => {
  if (!isRequestEventType(event.type)) {
    throw new CogitaveError(
      'INTERNAL',
      `Stream ${event.streamId} holds event type "${event.type}" at revision ${event.revision}, which this version does not know; upgrade before writing to it.`,
      { streamId: event.streamId, type: event.type },
    );
  }
  return parseRequestEvent(event);
};

/**
 * The caller's optimistic-concurrency expectation, checked before deciding. A request that
 * does not exist is left to decide, which reports it as unknown rather than as stale.
 */
const checkExpected = (
  requestId: string,
  expected: ExpectedRevision | undefined,
  actual: bigint | null,
): void => {
  if (expected === undefined || expected === 'any' || actual === null) return;
  if (expected === 'stream_exists' || expected === actual) return;
  throw new RequestChanged(
    requestId,
    new WrongExpectedVersion(requestStreamId(requestId), expected, actual),
  );
};

// What an allocation stores to create the request later; read back leniently, because the
// form's rules may have tightened since it was stored and it was valid then.
const storedIntakeSchema = z.object({
  intake: z.object({
    title: z.string(),
    problem: z.string(),
    product: z.string(),
    requester: z.string(),
    acceptanceCriteria: z.array(z.string()),
    links: z.array(z.object({ url: z.string(), title: z.string().optional() })),
    priority: z.enum(PRIORITIES),
  }),
  meta: z.object({
    commandId: z.string(),
    actor: z.string(),
    at: z.string(),
    correlationId: z.string().optional(),
    causationId: z.string().optional(),
  }),
});

interface StoredIntake {
  readonly intake: IntakeForm;
  readonly meta: CommandMetadata;
}

/** The allocated request's RequestProposed (appended again, idempotently, on a retry). */
const createRequest = (
  allocation: RequestIdAllocation<StoredIntake>,
): RequestCreation<Omit<IntakeResult, 'requestId' | 'revision'>> => {
  const { intake, meta } = allocation.payload;
  const events = decide(
    { type: 'ProposeIntake', requestId: allocation.requestId, intake, meta },
    undefined,
  );
  const proposed = events[0];
  if (proposed?.type !== 'RequestProposed' || events.length !== 1)
    throw new CogitaveError('INTERNAL', 'an intake decided other events than RequestProposed');
  return {
    streamId: requestStreamId(allocation.requestId),
    events,
    meta,
    answer: (position) => ({ position, proposed, at: eventMetadata(meta).at }),
  };
};

export const createRequestCommandHandlers = ({
  eventStore,
  principals = createPrincipalDirectory(),
}: RequestCommandHandlerDeps): RequestCommandHandlers => {
  const execute = async (
    command: RequestCommand,
    expected?: ExpectedRevision,
  ): Promise<{ readonly revision: bigint; readonly events: readonly RequestEvent[] }> => {
    const requestId = requestIdOf(command);
    const streamId = requestStreamId(requestId);
    const outcome = await runCommand<RequestState, RequestEvent>(
      eventStore,
      {
        streamId,
        meta: command.meta,
        load: foldWholeStream(eventStore, streamId, command.meta, (history) =>
          history.reduce<RequestState>(
            (state, recorded) => evolveRequest(state, recorded, toRequestEvent(recorded)),
            undefined,
          ),
        ),
        decide: ({ state, revision }) => {
          checkExpected(requestId, expected, revision);
          return decide(command, state);
        },
        parse: toRequestEvent,
      },
      {
        maxAttempts: MAX_ATTEMPTS,
        conflict: (error) => new RequestChanged(requestId, error),
      },
    );
    // Nothing to record (already recorded): the request exists, or decide would have thrown.
    return { revision: outcome.revision ?? -1n, events: outcome.events };
  };

  // Intakes waiting at the same time share one allocation append (see request-ids.ts).
  const allocator = createRequestIdAllocator({
    eventStore,
    readPayload: (stored) => storedIntakeSchema.parse(stored),
    createRequest,
  });

  const result = async (
    command: RequestCommand,
    expected?: ExpectedRevision,
  ): Promise<CommandResult> => {
    const { revision } = await execute(command, expected);
    return { requestId: requestIdOf(command), revision };
  };

  return {
    proposeIntake: async (input, meta) => {
      const parsedMeta = parseCommandMetadata(meta, 'proposeIntake');
      const intake = parseInput(intakeInputSchema, input, 'proposeIntake');
      const { allocation, created } = await allocator.allocate({
        commandId: parsedMeta.commandId,
        metadata: eventMetadata(parsedMeta),
        payload: { intake, meta: parsedMeta },
      });
      // RequestProposed is the request's first event, whoever appended it.
      return { requestId: allocation.requestId, revision: 0n, ...created };
    },

    proposeStageAdvance: async (input, meta) => {
      const parsed = parseInput(stageAdvanceInputSchema, input, 'proposeStageAdvance');
      const command: RequestCommand = {
        type: 'ProposeStageAdvance',
        input: parsed,
        meta: parseCommandMetadata(meta, 'proposeStageAdvance'),
      };
      const { revision, events } = await execute(command, parsed.expectedRevision);
      const proposed = events.find((event) => event.type === 'StageAdvanceProposed');
      if (!proposed) throw new CogitaveError('INTERNAL', 'proposeStageAdvance decided no proposal');
      return { requestId: parsed.requestId, revision, proposalId: proposed.data.proposalId };
    },

    recordIntakeIssue: async (input, meta) =>
      result({
        type: 'RecordIntakeIssue',
        input: parseInput(intakeIssueInputSchema, input, 'recordIntakeIssue'),
        meta: parseCommandMetadata(meta, 'recordIntakeIssue'),
      }),

    recordProposalPullRequest: async (input, meta) =>
      result({
        type: 'RecordProposalPullRequest',
        input: parseInput(proposalPullRequestInputSchema, input, 'recordProposalPullRequest'),
        meta: parseCommandMetadata(meta, 'recordProposalPullRequest'),
      }),

    approveProposal: async (input, meta) =>
      result({
        type: 'ApproveProposal',
        input: parseInput(proposalDecisionInputSchema, input, 'approveProposal'),
        meta: parseCommandMetadata(meta, 'approveProposal'),
        principals,
      }),

    rejectProposal: async (input, meta) =>
      result({
        type: 'RejectProposal',
        input: parseInput(proposalDecisionInputSchema, input, 'rejectProposal'),
        meta: parseCommandMetadata(meta, 'rejectProposal'),
      }),

    rejectIntake: async (input, meta) =>
      result({
        type: 'RejectIntake',
        input: parseInput(intakeDecisionInputSchema, input, 'rejectIntake'),
        meta: parseCommandMetadata(meta, 'rejectIntake'),
      }),

    withdraw: async (input, meta) =>
      result({
        type: 'Withdraw',
        input: parseInput(withdrawInputSchema, input, 'withdraw'),
        meta: parseCommandMetadata(meta, 'withdraw'),
      }),

    withdrawByMaintainer: async (input, meta) =>
      result({
        type: 'MaintainerWithdraw',
        input: parseInput(maintainerWithdrawInputSchema, input, 'withdrawByMaintainer'),
        meta: parseCommandMetadata(meta, 'withdrawByMaintainer'),
      }),
  };
};
