import { createAllocationLog } from './request-ids/allocation-log.js';
import { requestYearOf } from './request-ids/ids.js';
import type {
  CompletedAllocation,
  IntakeToAllocate,
  RequestIdAllocator,
  RequestIdAllocatorOptions,
} from './request-ids/types.js';
import { YearAllocator } from './request-ids/year-allocator.js';

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
 * Writes take the two paths every write takes: the counter and binding facts go through a
 * bookkeeping log open for `RequestIdAllocated` and `IntakeCommandBound` only, the request's
 * `RequestProposed` (decided by the request's own decider) through the command kernel
 * (`appendDecided`), with the intake command's metadata and ids.
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
 * PGlite: `EventStore.appendAtomically`, through the command kernel's
 * `appendDecidedWithBookkeeping`) a batch is one transaction: the counter events, the
 * bindings and the requests together, all or nothing. Allocations are then complete the
 * moment they exist, and a fresh intake needs no binding check first: its allocation event's
 * id derives from its commandId, so a command allocated before (a retry, here or in another
 * process, in any year) is refused by the store with DuplicateEventId, and only then are the
 * bindings checked. An intake costs one append and no read while this process's view of the
 * counter head holds. The protocol above still completes what an older writer (or a store
 * without the capability) left incomplete.
 *
 * Modules: `request-ids/ids.ts` (names and formats), `allocation-log.ts` (the streams, read
 * and written), `year-allocator.ts` (one year's batches and the protocol's state),
 * `refusals.ts` (which intake a refused append blames), `pending.ts` (the waiting intakes).
 */

export {
  ALLOCATION_EVENT_TYPES,
  formatRequestId,
  INTAKE_COMMAND_BOUND,
  intakeCommandStreamId,
  parseRequestId,
  REQUEST_ID_ALLOCATED,
  requestIdCounterStreamId,
  requestYearOf,
} from './request-ids/ids.js';
export type {
  CompletedAllocation,
  IntakeToAllocate,
  RequestCreation,
  RequestIdAllocation,
  RequestIdAllocator,
  RequestIdAllocatorOptions,
} from './request-ids/types.js';

export const createRequestIdAllocator = <Payload, Created>(
  options: RequestIdAllocatorOptions<Payload, Created>,
): RequestIdAllocator<Payload, Created> => {
  const log = createAllocationLog(options);
  const maxBatch = options.maxBatch ?? 100;
  const maxAttempts = options.maxAttempts ?? 50;
  /** Commands being allocated in this process: a second call of one joins the first. */
  const inFlight = new Map<string, Promise<CompletedAllocation<Payload, Created>>>();
  const years = new Map<number, YearAllocator<Payload, Created>>();

  const allocateOnce = async (
    intake: IntakeToAllocate<Payload>,
  ): Promise<CompletedAllocation<Payload, Created>> => {
    const year = requestYearOf(intake.metadata.at);
    let allocator = years.get(year);
    if (!allocator) {
      allocator = new YearAllocator(year, log, maxBatch, maxAttempts);
      years.set(year, allocator);
    }
    const checkedIn = allocator.epochIfKnown();
    // Atomic: the store itself refuses a second allocation of a command (see above).
    if (log.atomic) return allocator.enqueue(intake, checkedIn);
    // Most retries end here: the earlier attempt completed.
    const bound = await log.findBound(intake.commandId);
    if (bound) return log.complete(bound);
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
