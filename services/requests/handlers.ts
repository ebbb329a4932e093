import { z } from 'zod';
import type { IntakeForm } from '../../lifecycle/intake-form.js';
import { PRIORITIES } from '../../lifecycle/intake-form.js';
import { WrongExpectedVersion } from '../event-store/errors.js';
import type { EventStore, ExpectedRevision, RecordedEvent } from '../event-store/types.js';
import { CogitaveError } from '../runtime/errors.js';
import type { CommandMetadata, CommandResult, RequestCommandHandlers } from './commands.js';
import { decide, requestIdOf, type RequestCommand } from './decide.js';
import { RequestChanged } from './errors.js';
import { commandEventId, eventMetadata, toEventsToAppend } from './event-ids.js';
import { REQUEST_EVENT_TYPES, requestStreamId, type RequestEvent } from './events.js';
import {
  commandMetadataSchema,
  intakeDecisionInputSchema,
  intakeInputSchema,
  intakeIssueInputSchema,
  parseInput,
  proposalDecisionInputSchema,
  proposalPullRequestInputSchema,
  stageAdvanceInputSchema,
  withdrawInputSchema,
} from './inputs.js';
import { allocateRequestId, type RequestIdAllocation } from './request-ids.js';
import { evolve, initialState, type RequestState } from './state.js';

/**
 * The write side of requests: validate, load the stream, fold, decide, append at the revision
 * the decision was made on. A retried command (same commandId) appends nothing new: if the
 * stream already holds the command's first event (ids derive from the commandId), the command
 * is decided again on the history before it and appended at that same revision, which the
 * store answers as an idempotent success with the original result.
 */

export interface RequestCommandHandlerDeps {
  readonly eventStore: EventStore;
}

const PAGE = 1000;

const readWholeStream = async (
  eventStore: EventStore,
  streamId: string,
): Promise<RecordedEvent[]> => {
  const events: RecordedEvent[] = [];
  for (;;) {
    const page = await eventStore.readStream(streamId, {
      fromRevision: BigInt(events.length),
      maxCount: PAGE,
    });
    events.push(...page);
    if (page.length < PAGE) return events;
  }
};

const isRequestEventType = (type: string): type is RequestEvent['type'] =>
  (REQUEST_EVENT_TYPES as readonly string[]).includes(type);

/** Stored events are trusted (they were decided); an unknown type means this code is too old. */
const toRequestEvent = (event: RecordedEvent): RequestEvent => {
  if (!isRequestEventType(event.type)) {
    throw new CogitaveError(
      'INTERNAL',
      `Stream ${event.streamId} holds event type "${event.type}" at revision ${event.revision}, which this version does not know; upgrade before writing to it.`,
      { streamId: event.streamId, type: event.type },
    );
  }
  return { type: event.type, data: event.data } as RequestEvent;
};

const expectedOf = (state: RequestState): ExpectedRevision => state.revision ?? 'no_stream';

/**
 * The caller's optimistic-concurrency expectation, checked before deciding. A request that
 * does not exist is left to decide, which reports it as unknown rather than as stale.
 */
const checkExpected = (
  requestId: string,
  expected: ExpectedRevision | undefined,
  state: RequestState,
): void => {
  const actual = state.revision;
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

export const createRequestCommandHandlers = ({
  eventStore,
}: RequestCommandHandlerDeps): RequestCommandHandlers => {
  // Intakes of one process allocate their ids one at a time: concurrent allocations would only
  // race for the same counter revision and retry (quadratic under load). Across processes the
  // race remains, and the allocator settles it.
  let allocating: Promise<unknown> = Promise.resolve();
  const oneAtATime = <T>(work: () => Promise<T>): Promise<T> => {
    const next = allocating.then(work, work);
    allocating = next.catch(() => undefined);
    return next;
  };
  const execute = async (
    command: RequestCommand,
    expected?: ExpectedRevision,
  ): Promise<{ readonly revision: bigint; readonly events: readonly RequestEvent[] }> => {
    const requestId = requestIdOf(command);
    const streamId = requestStreamId(requestId);
    const recorded = await readWholeStream(eventStore, streamId);
    const replayAt = recorded.findIndex(
      (event) => event.id === commandEventId(command.meta.commandId, 0),
    );
    const history = replayAt === -1 ? recorded : recorded.slice(0, replayAt);
    const state = history.map(toRequestEvent).reduce(evolve, initialState);
    checkExpected(requestId, expected, state);
    const events = decide(command, state);
    // Nothing to record (already recorded): the request exists, or decide would have thrown.
    if (events.length === 0) return { revision: state.revision ?? -1n, events };
    try {
      const result = await eventStore.append(streamId, toEventsToAppend(events, command.meta), {
        expectedRevision: expectedOf(state),
      });
      return { revision: result.nextRevision, events };
    } catch (error) {
      if (error instanceof WrongExpectedVersion) throw new RequestChanged(requestId, error);
      throw error;
    }
  };

  const metaOf = (meta: CommandMetadata, what: string): CommandMetadata =>
    parseInput(commandMetadataSchema, meta, `${what} metadata`);

  const createRequest = async (allocation: RequestIdAllocation<StoredIntake>): Promise<void> => {
    const { intake, meta } = allocation.payload;
    const events = decide(
      { type: 'ProposeIntake', requestId: allocation.requestId, intake, meta },
      initialState,
    );
    await eventStore.append(requestStreamId(allocation.requestId), toEventsToAppend(events, meta), {
      expectedRevision: 'no_stream',
    });
  };

  const result = async (
    command: RequestCommand,
    expected?: ExpectedRevision,
  ): Promise<CommandResult> => {
    const { revision } = await execute(command, expected);
    return { requestId: requestIdOf(command), revision };
  };

  return {
    proposeIntake: async (input, meta) => {
      const parsedMeta = metaOf(meta, 'proposeIntake');
      const intake = parseInput(intakeInputSchema, input, 'proposeIntake');
      const allocation = await oneAtATime(() =>
        allocateRequestId<StoredIntake>({
          eventStore,
          commandId: parsedMeta.commandId,
          metadata: eventMetadata(parsedMeta),
          payload: { intake, meta: parsedMeta },
          readPayload: (stored) => storedIntakeSchema.parse(stored),
          createRequest,
        }),
      );
      // RequestProposed is the request's first event, whoever appended it.
      return { requestId: allocation.requestId, revision: 0n };
    },

    proposeStageAdvance: async (input, meta) => {
      const parsed = parseInput(stageAdvanceInputSchema, input, 'proposeStageAdvance');
      const command: RequestCommand = {
        type: 'ProposeStageAdvance',
        input: parsed,
        meta: metaOf(meta, 'proposeStageAdvance'),
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
        meta: metaOf(meta, 'recordIntakeIssue'),
      }),

    recordProposalPullRequest: async (input, meta) =>
      result({
        type: 'RecordProposalPullRequest',
        input: parseInput(proposalPullRequestInputSchema, input, 'recordProposalPullRequest'),
        meta: metaOf(meta, 'recordProposalPullRequest'),
      }),

    approveProposal: async (input, meta) =>
      result({
        type: 'ApproveProposal',
        input: parseInput(proposalDecisionInputSchema, input, 'approveProposal'),
        meta: metaOf(meta, 'approveProposal'),
      }),

    rejectProposal: async (input, meta) =>
      result({
        type: 'RejectProposal',
        input: parseInput(proposalDecisionInputSchema, input, 'rejectProposal'),
        meta: metaOf(meta, 'rejectProposal'),
      }),

    rejectIntake: async (input, meta) =>
      result({
        type: 'RejectIntake',
        input: parseInput(intakeDecisionInputSchema, input, 'rejectIntake'),
        meta: metaOf(meta, 'rejectIntake'),
      }),

    withdraw: async (input, meta) =>
      result({
        type: 'Withdraw',
        input: parseInput(withdrawInputSchema, input, 'withdraw'),
        meta: metaOf(meta, 'withdraw'),
      }),
  };
};
