import type { DecidedEvent } from '../../commands/handler.js';
import type { CommandMetadata } from '../../commands/metadata.js';
import type { EventMetadata, EventStore, Position } from '../../event-store/types.js';

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

/**
 * The request an allocation creates: its first events as the request's decider decided them,
 * appended at `no_stream` through the command kernel (`appendDecided`), and the answer it makes.
 */
export interface RequestCreation<Created> {
  readonly streamId: string;
  readonly events: readonly DecidedEvent[];
  /**
   * The intake command's metadata: the events carry it and their ids derive from its
   * commandId, so a retry or a helper appends the same events again, idempotently.
   */
  readonly meta: CommandMetadata;
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
