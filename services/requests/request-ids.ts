import { z } from 'zod';
import { WrongExpectedVersion } from '../event-store/errors.js';
import type { EventMetadata, EventStore, RecordedEvent } from '../event-store/types.js';
import { Unavailable } from '../runtime/errors.js';
import { commandEventId } from '../commands/event-ids.js';
import { requestStreamId } from './events.js';

/**
 * Request ids `req-YYYY-NNNN`: a per-year sequence, allocated without races or gaps using
 * only the EventStore port (so it works on EventStoreDB too, which has no transactions across
 * streams and no global event-id index).
 *
 * Streams:
 * - `counter-request-ids-<year>`: one `RequestIdAllocated` per id. Sequence n is the event at
 *   revision n-1, appended with that exact expected revision, so two allocators can never
 *   take the same number and no number is skipped: the loser of a race reloads and retries.
 *   The event carries the command's payload (the intake) so anyone can finish it.
 * - `intake-command-<commandId>`: `IntakeCommandBound`, the commandId → id binding that lets a
 *   retried intake find its id without scanning the counter.
 *
 * An allocation is "complete" when it is bound and its request stream exists. Before taking
 * a number, an allocator completes the allocation at the head of the counter (whoever made
 * it). So only the newest allocation can ever be incomplete (its maker crashed), and:
 * - a retry of that command finds it at the head, or finds its binding: same id, no new number;
 * - the next intake of the year completes it: no number is left without its request.
 * Every step is an append with deterministic ids at an exact revision, so completing twice
 * (by the maker and a helper at once) is an idempotent success.
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

export interface AllocateRequestIdOptions<Payload> {
  readonly eventStore: EventStore;
  readonly commandId: string;
  /** The command's metadata: its `at` picks the year. */
  readonly metadata: EventMetadata;
  /** JSON stored with the allocation, enough to create the request (the intake). */
  readonly payload: Payload;
  /** Reads a stored payload back (it may have been written by another process). */
  readonly readPayload: (stored: unknown) => Payload;
  /** Creates the allocated request's stream; must be idempotent (deterministic ids). */
  readonly createRequest: (allocation: RequestIdAllocation<Payload>) => Promise<void>;
  /** Give up after this many lost races (default 200) with Unavailable. */
  readonly maxAttempts?: number;
  /** How long to let a maker complete its own allocation before helping (default 25 ms). */
  readonly helpDelayMs?: number;
}

const allocatedSchema = z.object({
  requestId: z.string(),
  year: z.number().int(),
  sequence: z.number().int().positive(),
  commandId: z.string(),
  payload: z.unknown(),
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

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** After a lost race: a random pause that grows, so colliding allocators spread out. */
const pause = (attempt: number): Promise<void> => sleep(Math.random() * Math.min(2 ** attempt, 50));

export const allocateRequestId = async <Payload>(
  options: AllocateRequestIdOptions<Payload>,
): Promise<RequestIdAllocation<Payload>> => {
  const { eventStore, commandId } = options;
  const year = requestYearOf(options.metadata.at);
  const counter = requestIdCounterStreamId(year);

  const toAllocation = (event: RecordedEvent): RequestIdAllocation<Payload> => {
    const data = allocatedSchema.parse(event.data);
    return {
      ...data,
      payload: options.readPayload(data.payload),
      metadata: chainMetadata(event.metadata),
    };
  };

  // The request stream is written last, so its existence means the allocation is complete.
  const isComplete = async (allocation: RequestIdAllocation<Payload>): Promise<boolean> =>
    (await eventStore.readStream(requestStreamId(allocation.requestId), { maxCount: 1 })).length >
    0;

  const complete = async (
    allocation: RequestIdAllocation<Payload>,
    helping: boolean,
  ): Promise<void> => {
    if (await isComplete(allocation)) return;
    // Someone else's allocation is usually being completed by its maker right now: give it a
    // moment before doing the same work again (only a crashed maker needs the help).
    if (helping) {
      await sleep(helpDelayMs);
      if (await isComplete(allocation)) return;
    }
    const { requestId, sequence } = allocation;
    await eventStore.append(
      intakeCommandStreamId(allocation.commandId),
      [
        {
          id: commandEventId(allocation.commandId, 'bind'),
          type: INTAKE_COMMAND_BOUND,
          data: { requestId, year: allocation.year, sequence },
          metadata: allocation.metadata,
        },
      ],
      { expectedRevision: 'no_stream' },
    );
    await options.createRequest(allocation);
  };

  /** This command's allocation if it already has one (a retry). */
  const findBound = async (): Promise<RequestIdAllocation<Payload> | undefined> => {
    const [bound] = await eventStore.readStream(intakeCommandStreamId(commandId), { maxCount: 1 });
    if (!bound) return undefined;
    const { year: boundYear, sequence } = boundSchema.parse(bound.data);
    const [allocated] = await eventStore.readStream(requestIdCounterStreamId(boundYear), {
      fromRevision: BigInt(sequence - 1),
      maxCount: 1,
    });
    if (!allocated) throw new Error(`intake ${commandId} is bound to a missing allocation`);
    return toAllocation(allocated);
  };

  const maxAttempts = options.maxAttempts ?? 200;
  const helpDelayMs = options.helpDelayMs ?? 25;
  for (let attempt = 1; attempt <= maxAttempts; attempt += 1) {
    const bound = await findBound();
    if (bound) {
      await complete(bound, false);
      return bound;
    }
    const [head] = await eventStore.readStream(counter, { direction: 'backwards', maxCount: 1 });
    if (head) {
      const previous = toAllocation(head);
      const ours = previous.commandId === commandId;
      await complete(previous, !ours);
      if (ours) return previous;
    }
    const sequence = head ? Number(head.revision) + 2 : 1;
    const allocation: RequestIdAllocation<Payload> = {
      requestId: formatRequestId(year, sequence),
      year,
      sequence,
      commandId,
      payload: options.payload,
      metadata: chainMetadata(options.metadata),
    };
    try {
      await eventStore.append(
        counter,
        [
          {
            id: commandEventId(commandId, 'allocate'),
            type: REQUEST_ID_ALLOCATED,
            data: {
              requestId: allocation.requestId,
              year,
              sequence,
              commandId,
              payload: allocation.payload,
            },
            metadata: allocation.metadata,
          },
        ],
        { expectedRevision: head ? head.revision : 'no_stream' },
      );
    } catch (error) {
      if (!(error instanceof WrongExpectedVersion)) throw error;
      // Someone took this number first: reload the head and try the next one.
      await pause(attempt);
      continue;
    }
    await complete(allocation, false);
    return allocation;
  }
  throw new Unavailable(
    `Could not allocate a request id after ${maxAttempts} attempts: too many intakes at once. Retry the intake with the same commandId.`,
    { commandId, year },
  );
};
