import { z } from 'zod';
import { createBookkeepingLog } from '../../commands/bookkeeping.js';
import {
  appendDecided,
  appendDecidedWithBookkeeping,
  type AppendDecidedWithBookkeeping,
  type AtomicPart,
  type DecidedAppend,
} from '../../commands/decided.js';
import { commandEventId } from '../../commands/event-ids.js';
import type {
  EventMetadata,
  ExpectedRevision,
  RecordedEvent,
  StreamAppend,
} from '../../event-store/types.js';
import { CogitaveError } from '../../runtime/errors.js';
import { requestStreamId } from '../events.js';
import {
  ALLOCATION_EVENT_TYPES,
  formatRequestId,
  INTAKE_COMMAND_BOUND,
  intakeCommandStreamId,
  REQUEST_ID_ALLOCATED,
  requestIdCounterStreamId,
} from './ids.js';
import type {
  CompletedAllocation,
  IntakeToAllocate,
  RequestCreation,
  RequestIdAllocation,
  RequestIdAllocatorOptions,
} from './types.js';

/**
 * The allocator's streams: reading allocations and bindings back, and writing them — the
 * counter and binding facts through a bookkeeping log open for those two types only, the
 * request's own decided events through the command kernel (`appendDecided`), and a whole batch
 * at once through the kernel's atomic entry where the store has one. Nothing here appends to
 * the event store itself.
 */

const allocatedSchema = z.object({
  requestId: z.string(),
  year: z.number().int(),
  sequence: z.number().int().positive(),
  commandId: z.string(),
  payload: z.unknown(),
  // Absent on allocations stored before batches: each was its own batch.
  batchFirst: z.number().int().positive().optional(),
});

const boundSchema = z.object({
  requestId: z.string(),
  year: z.number().int(),
  sequence: z.number().int().positive(),
});

const chainMetadata = ({
  actor,
  correlationId,
  causationId,
  at,
}: EventMetadata): EventMetadata => ({
  actor,
  correlationId,
  causationId,
  at,
});

/** Sequence `sequence` of `year`, for the intake that takes it. */
export const newAllocation = <Payload>(
  year: number,
  sequence: number,
  intake: IntakeToAllocate<Payload>,
): RequestIdAllocation<Payload> => ({
  requestId: formatRequestId(year, sequence),
  year,
  sequence,
  commandId: intake.commandId,
  payload: intake.payload,
  metadata: chainMetadata(intake.metadata),
});

/** The id of a command's allocation event: the same in every year's counter. */
export const allocationEventId = (commandId: string): string =>
  commandEventId(commandId, 'allocate');

/** A batch's counter events, at the counter's exact revision `expected`. */
const counterAppend = <Payload>(
  year: number,
  allocations: readonly RequestIdAllocation<Payload>[],
  batchFirst: number,
  expected: ExpectedRevision,
): StreamAppend => ({
  streamId: requestIdCounterStreamId(year),
  events: allocations.map((allocation) => ({
    id: allocationEventId(allocation.commandId),
    type: REQUEST_ID_ALLOCATED,
    data: {
      requestId: allocation.requestId,
      year,
      sequence: allocation.sequence,
      commandId: allocation.commandId,
      payload: allocation.payload,
      batchFirst,
    },
    metadata: allocation.metadata,
  })),
  options: { expectedRevision: expected },
});

const bindingAppend = <Payload>(allocation: RequestIdAllocation<Payload>): StreamAppend => ({
  streamId: intakeCommandStreamId(allocation.commandId),
  events: [
    {
      id: commandEventId(allocation.commandId, 'bind'),
      type: INTAKE_COMMAND_BOUND,
      data: {
        requestId: allocation.requestId,
        year: allocation.year,
        sequence: allocation.sequence,
      },
      metadata: allocation.metadata,
    },
  ],
  options: { expectedRevision: 'no_stream' },
});

/** The request's creation as the kernel appends it: a new stream. */
export const creationAppend = <Created>(creation: RequestCreation<Created>): DecidedAppend => ({
  streamId: creation.streamId,
  events: creation.events,
  meta: creation.meta,
  expectedRevision: 'no_stream',
});

export type AllocationLog<Payload, Created> = ReturnType<
  typeof createAllocationLog<Payload, Created>
>;

export const createAllocationLog = <Payload, Created>(
  options: RequestIdAllocatorOptions<Payload, Created>,
) => {
  const { eventStore, createRequest } = options;
  const bookkeeping = createBookkeepingLog(eventStore, ALLOCATION_EVENT_TYPES);
  const atomic: AppendDecidedWithBookkeeping | undefined = appendDecidedWithBookkeeping(
    eventStore,
    bookkeeping,
  );

  const toAllocation = (event: RecordedEvent) => {
    const { batchFirst, ...data } = allocatedSchema.parse(event.data);
    const allocation: RequestIdAllocation<Payload> = {
      ...data,
      payload: options.readPayload(data.payload),
      metadata: chainMetadata(event.metadata),
    };
    return { allocation, batchFirst: batchFirst ?? data.sequence };
  };

  /** Binds and creates (both idempotent, so at once): the allocation is then complete. */
  const complete = async (
    allocation: RequestIdAllocation<Payload>,
  ): Promise<CompletedAllocation<Payload, Created>> => {
    const creation = createRequest(allocation);
    const binding = bindingAppend(allocation);
    const [, appended] = await Promise.all([
      bookkeeping.record(binding.streamId, binding.events, binding.options),
      appendDecided(eventStore, creationAppend(creation)),
    ]);
    return { allocation, created: creation.answer(appended.position) };
  };

  return {
    createRequest,
    /**
     * One transaction for a batch (counter, bindings, requests) where the store has one;
     * undefined where it has not.
     */
    atomic,

    complete,

    /** Someone else's allocation: complete only what is missing (usually nothing). */
    completeIfNeeded: async (allocation: RequestIdAllocation<Payload>): Promise<void> => {
      const [bound, request] = await Promise.all([
        eventStore.readStream(intakeCommandStreamId(allocation.commandId), { maxCount: 1 }),
        eventStore.readStream(requestStreamId(allocation.requestId), { maxCount: 1 }),
      ]);
      if (bound.length === 0 || request.length === 0) await complete(allocation);
    },

    /** The allocation this command is bound to, if an earlier attempt completed one. */
    findBound: async (commandId: string): Promise<RequestIdAllocation<Payload> | undefined> => {
      const [bound] = await eventStore.readStream(intakeCommandStreamId(commandId), {
        maxCount: 1,
      });
      if (!bound) return undefined;
      const { year, sequence } = boundSchema.parse(bound.data);
      const [allocated] = await eventStore.readStream(requestIdCounterStreamId(year), {
        fromRevision: BigInt(sequence - 1),
        maxCount: 1,
      });
      if (!allocated) {
        throw new CogitaveError(
          'INTERNAL',
          `intake ${commandId} is bound to ${formatRequestId(year, sequence)}, which its counter does not hold`,
          { commandId, year, sequence },
        );
      }
      return toAllocation(allocated).allocation;
    },

    /** The counter's revision and the allocations of its newest batch (none: no counter yet). */
    readHeadBatch: async (
      year: number,
    ): Promise<{
      readonly revision: bigint | null;
      readonly batch: readonly RequestIdAllocation<Payload>[];
    }> => {
      const counter = requestIdCounterStreamId(year);
      const [last] = await eventStore.readStream(counter, { direction: 'backwards', maxCount: 1 });
      if (!last) return { revision: null, batch: [] };
      const newest = toAllocation(last);
      if (newest.batchFirst === newest.allocation.sequence) {
        return { revision: last.revision, batch: [newest.allocation] };
      }
      const events = await eventStore.readStream(counter, {
        fromRevision: BigInt(newest.batchFirst - 1),
        maxCount: newest.allocation.sequence - newest.batchFirst + 1,
      });
      return {
        revision: last.revision,
        batch: events.map((event) => toAllocation(event).allocation),
      };
    },

    /** Appends a batch's counter events alone; answers the counter's new revision. */
    appendCounter: async (
      year: number,
      allocations: readonly RequestIdAllocation<Payload>[],
      batchFirst: number,
      expected: ExpectedRevision,
    ): Promise<bigint> => {
      const {
        streamId,
        events,
        options: appendOptions,
      } = counterAppend(year, allocations, batchFirst, expected);
      return (await bookkeeping.record(streamId, events, appendOptions)).nextRevision;
    },

    /**
     * The parts of a batch's one transaction: the counter events first, then each
     * allocation's binding and request, in the order of `allocations`.
     */
    batchParts: (
      year: number,
      allocations: readonly RequestIdAllocation<Payload>[],
      batchFirst: number,
      expected: ExpectedRevision,
      creations: readonly RequestCreation<Created>[],
    ): AtomicPart[] => [
      { bookkeeping: counterAppend(year, allocations, batchFirst, expected) },
      ...allocations.flatMap((allocation, index): AtomicPart[] => {
        const creation = creations[index];
        return creation
          ? [{ bookkeeping: bindingAppend(allocation) }, { decided: creationAppend(creation) }]
          : [];
      }),
    ],
  };
};
