import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { commandEventId } from '../commands/event-ids.js';
import { DuplicateEventId, WrongExpectedVersion } from '../event-store/errors.js';
import type {
  EventMetadata,
  EventStore,
  EventToAppend,
  Position,
  RecordedEvent,
  StreamAppend,
} from '../event-store/types.js';
import { CogitaveError, Unavailable } from '../runtime/errors.js';
import { requestStreamId } from './events.js';

/**
 * Request ids `req-YYYY-NNNN`: a per-year sequence, allocated without races or gaps using
 * only the EventStore port (so it works on EventStoreDB too, which has no transactions across
 * streams and no global event-id index), and in batches, so concurrent intakes share appends
 * instead of queueing for them.
 *
 * Streams:
 * - `counter-request-ids-<year>`: one `RequestIdAllocated` per id. Sequence n is the event at
 *   revision n-1. The intakes waiting in a process are allocated together: one append of
 *   consecutive numbers at the counter's exact revision, so two allocators can never take the
 *   same number and none is skipped (the loser of a race reloads and retries). Each event
 *   carries its command's payload (the intake), so anyone can finish it, and `batchFirst`,
 *   the sequence that opened its append, so anyone can find the whole batch.
 * - `intake-command-<commandId>`: `IntakeCommandBound`, the commandId → id binding that lets a
 *   retried intake find its id without scanning the counter.
 *
 * An allocation is complete when it is bound and its request stream exists. Before appending
 * a batch, an allocator makes sure the batch at the head of the counter is complete (its own,
 * which it just completed, or anyone's, which it completes: a crashed maker's). So only the
 * newest batch can ever hold incomplete allocations, and:
 * - a retry of one of its commands finds it there, or finds its binding: same id, no new number;
 * - the next intake of the year (in any process) completes it: no number stays without its
 *   request for longer than that.
 * Completing is appends with deterministic ids at `no_stream`, so doing it twice (the maker
 * and a helper at once) is an idempotent success.
 *
 * A fresh intake must know it has no allocation yet, and an allocation may appear between a
 * binding check and the append that would give the command a second number (a helper
 * completing a crashed attempt's batch, or another attempt of the same command elsewhere). So
 * a binding check only counts when it started after the allocator last saw the head complete
 * (an *epoch*) and the counter has moved only by this allocator's own appends since: an append
 * at the exact revision proves that. When it fails, the allocator reloads the head, completes
 * it, starts a new epoch and checks the bindings again.
 *
 * On a store with atomic appends across streams and store-wide unique event ids (Postgres,
 * PGlite: `EventStore.appendAtomically`) a batch is one transaction: the counter events, the
 * bindings and the requests together, all or nothing. Allocations are then complete the
 * moment they exist, and a fresh intake needs no binding check first: its allocation event's
 * id derives from its commandId, so a command allocated before (a retry, here or in another
 * process, in any year) is refused by the store with DuplicateEventId, and only then are the
 * bindings checked. An intake costs one append and no read while this process's view of the
 * counter head holds. The protocol above still completes what an older writer (or a store
 * without the capability) left incomplete.
 *
 * Names avoid the `request-` prefix, so readers of request streams by prefix never see them.
 */

export const REQUEST_ID_ALLOCATED = 'RequestIdAllocated';
export const INTAKE_COMMAND_BOUND = 'IntakeCommandBound';

export const requestIdCounterStreamId = (year: number): string => `counter-request-ids-${year}`;
export const intakeCommandStreamId = (commandId: string): string =>
  `intake-command-${commandId.toLowerCase()}`;

/** Sequence 1 → `req-2026-0001`; past 9999 the number simply grows (`req-2026-10000`). */
export const formatRequestId = (year: number, sequence: number): string =>
  `req-${year}-${String(sequence).padStart(4, '0')}`;

export const parseRequestId = (
  requestId: string,
): { readonly year: number; readonly sequence: number } | undefined => {
  const match = /^req-(\d{4})-(\d{4,})$/.exec(requestId);
  if (!match?.[1] || !match[2]) return undefined;
  const sequence = Number(match[2]);
  return sequence >= 1 && Number.isSafeInteger(sequence)
    ? { year: Number(match[1]), sequence }
    : undefined;
};

/** The year of an ISO timestamp, in UTC: the same instant gets the same year everywhere. */
export const requestYearOf = (at: string): number => new Date(at).getUTCFullYear();

export interface RequestIdAllocation<Payload> {
  readonly requestId: string;
  readonly year: number;
  readonly sequence: number;
  readonly commandId: string;
  readonly payload: Payload;
  /** The metadata of the command that made the allocation (also used to finish it). */
  readonly metadata: EventMetadata;
}

/** An allocation and what creating its request returned (for the command's answer). */
export interface CompletedAllocation<Payload, Created> {
  readonly allocation: RequestIdAllocation<Payload>;
  readonly created: Created;
}

export interface IntakeToAllocate<Payload> {
  readonly commandId: string;
  /** The command's metadata: its `at` picks the year. */
  readonly metadata: EventMetadata;
  /** JSON stored with the allocation, enough to create the request (the intake). */
  readonly payload: Payload;
}

/** The append that creates an allocated request's stream, and the answer it makes. */
export interface RequestCreation<Created> {
  readonly streamId: string;
  /** Deterministic ids: a retry or a helper appends the same events again, idempotently. */
  readonly events: readonly EventToAppend[];
  /** What the command answers with, once the events are stored at `position`. */
  readonly answer: (position: Position) => Created;
}

export interface RequestIdAllocatorOptions<Payload, Created> {
  readonly eventStore: EventStore;
  /** Reads a stored payload back (it may have been written by another process). */
  readonly readPayload: (stored: unknown) => Payload;
  /** The allocated request's first events (appended at `no_stream`) and the command's answer. */
  readonly createRequest: (allocation: RequestIdAllocation<Payload>) => RequestCreation<Created>;
  /** Most ids taken by one append (default 100). */
  readonly maxBatch?: number;
  /** Give up after this many lost races (default 50) with Unavailable. */
  readonly maxAttempts?: number;
}

export interface RequestIdAllocator<Payload, Created> {
  /**
   * The command's allocation, completed: a new id, or — a retried command — the one it got
   * before. Concurrent calls are allocated together.
   */
  allocate(intake: IntakeToAllocate<Payload>): Promise<CompletedAllocation<Payload, Created>>;
}

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

/** After a lost race: a random pause that grows, so colliding allocators spread out. */
const pause = (attempt: number): Promise<void> => sleep(Math.random() * Math.min(2 ** attempt, 20));

interface Pending<Payload, Created> {
  readonly intake: IntakeToAllocate<Payload>;
  /** The epoch its binding check started in; -1: not checked in a usable epoch. */
  checkedIn: number;
  settled: boolean;
  readonly resolve: (completed: CompletedAllocation<Payload, Created>) => void;
  readonly reject: (error: unknown) => void;
}

export const createRequestIdAllocator = <Payload, Created>(
  options: RequestIdAllocatorOptions<Payload, Created>,
): RequestIdAllocator<Payload, Created> => {
  const { eventStore } = options;
  const maxBatch = options.maxBatch ?? 100;
  const maxAttempts = options.maxAttempts ?? 50;
  /** Commands being allocated in this process: a second call of one joins the first. */
  const inFlight = new Map<string, Promise<CompletedAllocation<Payload, Created>>>();
  const years = new Map<number, ReturnType<typeof yearAllocator>>();

  const toAllocation = (event: RecordedEvent) => {
    const { batchFirst, ...data } = allocatedSchema.parse(event.data);
    const allocation: RequestIdAllocation<Payload> = {
      ...data,
      payload: options.readPayload(data.payload),
      metadata: chainMetadata(event.metadata),
    };
    return { allocation, batchFirst: batchFirst ?? data.sequence };
  };

  const bindingEvent = (allocation: RequestIdAllocation<Payload>): EventToAppend => ({
    id: commandEventId(allocation.commandId, 'bind'),
    type: INTAKE_COMMAND_BOUND,
    data: { requestId: allocation.requestId, year: allocation.year, sequence: allocation.sequence },
    metadata: allocation.metadata,
  });

  /** Binds and creates (both idempotent, so at once): the allocation is then complete. */
  const complete = async (
    allocation: RequestIdAllocation<Payload>,
  ): Promise<CompletedAllocation<Payload, Created>> => {
    const creation = options.createRequest(allocation);
    const [, appended] = await Promise.all([
      eventStore.append(intakeCommandStreamId(allocation.commandId), [bindingEvent(allocation)], {
        expectedRevision: 'no_stream',
      }),
      eventStore.append(creation.streamId, creation.events, { expectedRevision: 'no_stream' }),
    ]);
    return { allocation, created: creation.answer(appended.position) };
  };

  /** Someone else's allocation: complete only what is missing (usually nothing). */
  const completeIfNeeded = async (allocation: RequestIdAllocation<Payload>): Promise<void> => {
    const [bound, request] = await Promise.all([
      eventStore.readStream(intakeCommandStreamId(allocation.commandId), { maxCount: 1 }),
      eventStore.readStream(requestStreamId(allocation.requestId), { maxCount: 1 }),
    ]);
    if (bound.length === 0 || request.length === 0) await complete(allocation);
  };

  /** The allocation this command is bound to, if an earlier attempt completed one. */
  const findBound = async (
    commandId: string,
  ): Promise<RequestIdAllocation<Payload> | undefined> => {
    const [bound] = await eventStore.readStream(intakeCommandStreamId(commandId), { maxCount: 1 });
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
  };

  const appendAtomically = eventStore.appendAtomically?.bind(eventStore);

  const yearAllocator = (year: number) => {
    const counter = requestIdCounterStreamId(year);
    /** The counter's head while it is complete and this allocator may extend it; else unknown. */
    let head: { readonly revision: bigint | null } | undefined;
    let epoch = 0;
    /** Whether the counter has moved only by this allocator's appends since the epoch began. */
    let chainIntact = false;
    const waiting: Pending<Payload, Created>[] = [];
    let running = false;
    /**
     * Atomic mode: whether bindings must be checked before the next append (after the store
     * refused a reused event id: one of the commands may be allocated already).
     */
    let checkBindings = false;

    const invalidate = (): void => {
      head = undefined;
      chainIntact = false;
      epoch += 1;
    };

    const settle = (
      pending: Pending<Payload, Created>,
      outcome: { completed: CompletedAllocation<Payload, Created> } | { error: unknown },
    ): void => {
      if (pending.settled) return;
      pending.settled = true;
      if ('completed' in outcome) pending.resolve(outcome.completed);
      else pending.reject(outcome.error);
    };

    /** Reads the head batch, completes it, and starts an epoch in which bindings are checked. */
    const establishHead = async (open: readonly Pending<Payload, Created>[]): Promise<void> => {
      const [last] = await eventStore.readStream(counter, { direction: 'backwards', maxCount: 1 });
      const batch: RequestIdAllocation<Payload>[] = [];
      if (last) {
        const newest = toAllocation(last);
        if (newest.batchFirst === newest.allocation.sequence) batch.push(newest.allocation);
        else {
          const events = await eventStore.readStream(counter, {
            fromRevision: BigInt(newest.batchFirst - 1),
            maxCount: newest.allocation.sequence - newest.batchFirst + 1,
          });
          batch.push(...events.map((event) => toAllocation(event).allocation));
        }
        await Promise.all(batch.map(completeIfNeeded));
      }
      head = { revision: last?.revision ?? null };
      epoch += 1;
      chainIntact = true;
      // Commands of the head batch are allocated already (a retry, or another attempt of the
      // same command elsewhere): they get that id.
      await Promise.all(
        open.flatMap((pending) => {
          const allocation = batch.find((entry) => entry.commandId === pending.intake.commandId);
          return allocation && !pending.settled
            ? [
                complete(allocation).then((completed) => {
                  settle(pending, { completed });
                }),
              ]
            : [];
        }),
      );
    };

    /** Settles the commands an earlier attempt already allocated (their binding exists). */
    const settleBound = async (open: readonly Pending<Payload, Created>[]): Promise<void> => {
      const checkedIn = epoch;
      await Promise.all(
        open
          .filter((pending) => !pending.settled && pending.checkedIn !== checkedIn)
          .map(async (pending) => {
            const bound = await findBound(pending.intake.commandId);
            pending.checkedIn = checkedIn;
            if (bound) settle(pending, { completed: await complete(bound) });
          }),
      );
    };

    const allocateBatch = async (batch: readonly Pending<Payload, Created>[]): Promise<void> => {
      let open = batch.filter((pending) => !pending.settled);
      for (let attempt = 1; open.length > 0; attempt += 1) {
        if (attempt > maxAttempts) {
          const error = new Unavailable(
            `Could not allocate a request id after ${maxAttempts} attempts: too many intakes at once. Retry the intake with the same commandId.`,
            { year },
          );
          for (const pending of open) settle(pending, { error });
          return;
        }
        if (!head) await establishHead(open);
        if (!appendAtomically || checkBindings) await settleBound(open);
        open = open.filter((pending) => !pending.settled);
        const base = head;
        if (!base || open.length === 0) continue;
        const first = base.revision === null ? 1 : Number(base.revision) + 2;
        const allocations = open.map((pending, index): RequestIdAllocation<Payload> => ({
          requestId: formatRequestId(year, first + index),
          year,
          sequence: first + index,
          commandId: pending.intake.commandId,
          payload: pending.intake.payload,
          metadata: chainMetadata(pending.intake.metadata),
        }));
        const counterAppend: StreamAppend = {
          streamId: counter,
          events: allocations.map((allocation) => ({
            id: commandEventId(allocation.commandId, 'allocate'),
            type: REQUEST_ID_ALLOCATED,
            data: {
              requestId: allocation.requestId,
              year,
              sequence: allocation.sequence,
              commandId: allocation.commandId,
              payload: allocation.payload,
              batchFirst: first,
            },
            metadata: allocation.metadata,
          })),
          options: { expectedRevision: base.revision ?? 'no_stream' },
        };
        const creations = appendAtomically ? allocations.map(options.createRequest) : [];
        let appended: bigint;
        try {
          if (appendAtomically) {
            // Counter, bindings and requests in one transaction: complete once stored.
            const results = await appendAtomically([
              counterAppend,
              ...allocations.flatMap((allocation, index): StreamAppend[] => {
                const creation = creations[index];
                return creation
                  ? [
                      {
                        streamId: intakeCommandStreamId(allocation.commandId),
                        events: [bindingEvent(allocation)],
                        options: { expectedRevision: 'no_stream' },
                      },
                      {
                        streamId: creation.streamId,
                        events: creation.events,
                        options: { expectedRevision: 'no_stream' },
                      },
                    ]
                  : [];
              }),
            ]);
            const [counted] = results;
            if (!counted) throw new CogitaveError('INTERNAL', 'an atomic append answered nothing');
            checkBindings = false;
            head = { revision: counted.nextRevision };
            allocations.forEach((allocation, index) => {
              const pending = open[index];
              const stored = results[2 + 2 * index];
              const creation = creations[index];
              if (!pending || !stored || !creation) return;
              settle(pending, {
                completed: { allocation, created: creation.answer(stored.position) },
              });
            });
            return;
          }
          appended = (
            await eventStore.append(counterAppend.streamId, counterAppend.events, {
              expectedRevision: counterAppend.options.expectedRevision,
            })
          ).nextRevision;
        } catch (error) {
          const reused =
            error instanceof DuplicateEventId && error.details.streamId !== counter
              ? open.find(
                  (pending) =>
                    commandEventId(pending.intake.commandId, 'allocate') === error.details.eventId,
                )
              : undefined;
          if (reused) {
            // A command id already allocated in another year's counter: that command only.
            settle(reused, {
              error: new CogitaveError(
                'FAILED_PRECONDITION',
                `commandId ${reused.intake.commandId} was already used for an intake in another year; retry with the original command's metadata, or use a new commandId for a new intake.`,
                { commandId: reused.intake.commandId },
              ),
            });
            open = open.filter((pending) => !pending.settled);
            continue;
          }
          // Only once the bindings were checked: a retried command's reused ids look alike.
          const misused =
            error instanceof DuplicateEventId && checkBindings
              ? misusedCommand(error, open, creations)
              : undefined;
          if (misused) {
            // The command id names another command's event: that command only.
            settle(misused, {
              error: new CogitaveError(
                'FAILED_PRECONDITION',
                `commandId ${misused.intake.commandId} was already used for another command; use a new commandId for a new intake.`,
                { commandId: misused.intake.commandId },
              ),
            });
            open = open.filter((pending) => !pending.settled);
            continue;
          }
          if (!(error instanceof WrongExpectedVersion || error instanceof DuplicateEventId))
            throw error;
          // A command allocated before is refused as either (its id at another revision of
          // the counter reads as a moved counter): check the bindings before the next append.
          checkBindings = true;
          // Another allocator moved the counter (or took one of these commands): reload the
          // head, complete it, check the bindings again.
          invalidate();
          await pause(attempt);
          continue;
        }
        const outcomes = await Promise.allSettled(allocations.map(complete));
        outcomes.forEach((outcome, index) => {
          const pending = open[index];
          if (!pending) return;
          settle(
            pending,
            outcome.status === 'fulfilled'
              ? { completed: outcome.value }
              : { error: outcome.reason },
          );
        });
        // A batch not wholly complete must be completed (by whoever comes next) before another.
        if (outcomes.every((outcome) => outcome.status === 'fulfilled'))
          head = { revision: appended };
        else invalidate();
        return;
      }
    };

    const run = async (): Promise<void> => {
      running = true;
      try {
        while (waiting.length > 0) {
          const batch = waiting.splice(0, maxBatch);
          try {
            await allocateBatch(batch);
          } catch (error) {
            // The store failed (not a race): these intakes fail, nothing is assumed of the head.
            invalidate();
            for (const pending of batch) settle(pending, { error });
          }
        }
      } finally {
        running = false;
      }
    };

    return {
      /** The epoch a binding check starting now belongs to; -1 while none is usable. */
      epochIfKnown: (): number => (chainIntact ? epoch : -1),
      enqueue: (
        intake: IntakeToAllocate<Payload>,
        checkedIn: number,
      ): Promise<CompletedAllocation<Payload, Created>> =>
        new Promise((resolve, reject) => {
          waiting.push({ intake, checkedIn, settled: false, resolve, reject });
          if (!running) void run();
        }),
    };
  };

  /**
   * After DuplicateEventId in atomic mode, with the bindings checked (so no open command is
   * allocated already): the command whose request event the store holds in another stream.
   */
  const misusedCommand = (
    error: DuplicateEventId,
    open: readonly Pending<Payload, Created>[],
    creations: readonly RequestCreation<Created>[],
  ): Pending<Payload, Created> | undefined => {
    const index = creations.findIndex(
      (creation) =>
        creation.streamId !== error.details.streamId &&
        creation.events.some((event) => event.id === error.details.eventId),
    );
    return index === -1 ? undefined : open[index];
  };

  const allocateOnce = async (
    intake: IntakeToAllocate<Payload>,
  ): Promise<CompletedAllocation<Payload, Created>> => {
    const year = requestYearOf(intake.metadata.at);
    let allocator = years.get(year);
    if (!allocator) {
      allocator = yearAllocator(year);
      years.set(year, allocator);
    }
    const checkedIn = allocator.epochIfKnown();
    // Atomic: the store itself refuses a second allocation of a command (see above).
    if (appendAtomically) return allocator.enqueue(intake, checkedIn);
    // Most retries end here: the earlier attempt completed.
    const bound = await findBound(intake.commandId);
    if (bound) return complete(bound);
    return allocator.enqueue(intake, checkedIn);
  };

  return {
    allocate: (intake) => {
      const key = intake.commandId.toLowerCase();
      const running = inFlight.get(key);
      if (running) return running;
      const started = allocateOnce(intake).finally(() => {
        inFlight.delete(key);
      });
      inFlight.set(key, started);
      return started;
    },
  };
};
