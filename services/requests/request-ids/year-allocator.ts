import { setTimeout as sleep } from 'node:timers/promises';
import type { AppendDecidedWithBookkeeping } from '../../commands/decided.js';
import { DuplicateEventId, WrongExpectedVersion } from '../../event-store/errors.js';
import type { ExpectedRevision } from '../../event-store/types.js';
import { CogitaveError } from '../../runtime/errors.js';
import { newAllocation, type AllocationLog } from './allocation-log.js';
import { requestIdCounterStreamId } from './ids.js';
import { settle, unsettled, type Pending } from './pending.js';
import { blamedIntake, tooManyIntakes } from './refusals.js';
import type {
  CompletedAllocation,
  IntakeToAllocate,
  RequestCreation,
  RequestIdAllocation,
} from './types.js';

/** After a lost race: a random pause that grows, so colliding allocators spread out. */
const pause = (attempt: number): Promise<void> => sleep(Math.random() * Math.min(2 ** attempt, 20));

/** The counter's head while it is complete and this allocator may extend it. */
interface Head {
  readonly revision: bigint | null;
}

/**
 * One year's counter in this process: the intakes waiting for it are allocated together, one
 * batch at a time (see request-ids.ts for the protocol). The state below is what the allocator
 * knows of the counter between batches.
 */
export class YearAllocator<Payload, Created> {
  readonly #counter: string;
  /** The counter's head while it is complete and this allocator may extend it; else unknown. */
  #head: Head | undefined;
  #epoch = 0;
  /** Whether the counter has moved only by this allocator's appends since the epoch began. */
  #chainIntact = false;
  readonly #waiting: Pending<Payload, Created>[] = [];
  #running = false;
  /**
   * Atomic mode: whether bindings must be checked before the next append (after the store
   * refused a reused event id: one of the commands may be allocated already).
   */
  #checkBindings = false;

  constructor(
    readonly year: number,
    private readonly log: AllocationLog<Payload, Created>,
    private readonly maxBatch: number,
    private readonly maxAttempts: number,
  ) {
    this.#counter = requestIdCounterStreamId(year);
  }

  /** The epoch a binding check starting now belongs to; -1 while none is usable. */
  epochIfKnown(): number {
    return this.#chainIntact ? this.#epoch : -1;
  }

  enqueue(
    intake: IntakeToAllocate<Payload>,
    checkedIn: number,
  ): Promise<CompletedAllocation<Payload, Created>> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ intake, checkedIn, settled: false, resolve, reject });
      if (!this.#running) void this.#run();
    });
  }

  async #run(): Promise<void> {
    this.#running = true;
    try {
      while (this.#waiting.length > 0) {
        const batch = this.#waiting.splice(0, this.maxBatch);
        try {
          await this.#allocateBatch(batch);
        } catch (error) {
          // The store failed (not a race): these intakes fail, nothing is assumed of the head.
          this.#invalidate();
          for (const pending of batch) settle(pending, { error });
        }
      }
    } finally {
      this.#running = false;
    }
  }

  #invalidate(): void {
    this.#head = undefined;
    this.#chainIntact = false;
    this.#epoch += 1;
  }

  /** Reads the head batch, completes it, and starts an epoch in which bindings are checked. */
  async #establishHead(open: readonly Pending<Payload, Created>[]): Promise<void> {
    const { revision, batch } = await this.log.readHeadBatch(this.year);
    await Promise.all(batch.map(this.log.completeIfNeeded));
    this.#head = { revision };
    this.#epoch += 1;
    this.#chainIntact = true;
    // Commands of the head batch are allocated already (a retry, or another attempt of the
    // same command elsewhere): they get that id.
    await Promise.all(
      open.flatMap((pending) => {
        const allocation = batch.find((entry) => entry.commandId === pending.intake.commandId);
        return allocation && !pending.settled
          ? [
              this.log.complete(allocation).then((completed) => {
                settle(pending, { completed });
              }),
            ]
          : [];
      }),
    );
  }

  /** Settles the commands an earlier attempt already allocated (their binding exists). */
  async #settleBound(open: readonly Pending<Payload, Created>[]): Promise<void> {
    const checkedIn = this.#epoch;
    await Promise.all(
      open
        .filter((pending) => !pending.settled && pending.checkedIn !== checkedIn)
        .map(async (pending) => {
          const bound = await this.log.findBound(pending.intake.commandId);
          pending.checkedIn = checkedIn;
          if (bound) settle(pending, { completed: await this.log.complete(bound) });
        }),
    );
  }

  async #allocateBatch(batch: readonly Pending<Payload, Created>[]): Promise<void> {
    let open = unsettled(batch);
    for (let attempt = 1; open.length > 0; attempt += 1) {
      if (attempt > this.maxAttempts) {
        const error = tooManyIntakes(this.maxAttempts, this.year);
        for (const pending of open) settle(pending, { error });
        return;
      }
      if (!this.#head) await this.#establishHead(open);
      if (!this.log.atomic || this.#checkBindings) await this.#settleBound(open);
      open = unsettled(open);
      const base = this.#head;
      if (!base || open.length === 0) continue;
      if (await this.#append(open, base, attempt)) return;
      open = unsettled(open);
    }
  }

  /**
   * Appends the next numbers for `open` at the counter's head: true once the batch is
   * settled, false when the store refused the append (then the batch is allocated again).
   */
  async #append(
    open: readonly Pending<Payload, Created>[],
    base: Head,
    attempt: number,
  ): Promise<boolean> {
    const first = base.revision === null ? 1 : Number(base.revision) + 2;
    const allocations = open.map((pending, index) =>
      newAllocation(this.year, first + index, pending.intake),
    );
    const expected: ExpectedRevision = base.revision ?? 'no_stream';
    const { atomic } = this.log;
    const creations = atomic ? allocations.map(this.log.createRequest) : [];
    let appended: bigint;
    try {
      if (atomic) {
        await this.#appendAtomically(atomic, open, allocations, first, expected, creations);
        return true;
      }
      appended = await this.log.appendCounter(this.year, allocations, first, expected);
    } catch (error) {
      await this.#refused(error, open, creations, attempt);
      return false;
    }
    await this.#completeAll(open, allocations, appended);
    return true;
  }

  /** Counter, bindings and requests in one transaction: complete once stored. */
  async #appendAtomically(
    atomic: AppendDecidedWithBookkeeping,
    open: readonly Pending<Payload, Created>[],
    allocations: readonly RequestIdAllocation<Payload>[],
    first: number,
    expected: ExpectedRevision,
    creations: readonly RequestCreation<Created>[],
  ): Promise<void> {
    const results = await atomic(
      this.log.batchParts(this.year, allocations, first, expected, creations),
    );
    const [counted] = results;
    if (!counted) throw new CogitaveError('INTERNAL', 'an atomic append answered nothing');
    this.#checkBindings = false;
    this.#head = { revision: counted.nextRevision };
    allocations.forEach((allocation, index) => {
      const pending = open[index];
      const stored = results[2 + 2 * index];
      const creation = creations[index];
      if (!pending || !stored || !creation) return;
      settle(pending, { completed: { allocation, created: creation.answer(stored.position) } });
    });
  }

  /** Counter appended alone: bind and create each allocation, then the batch is complete. */
  async #completeAll(
    open: readonly Pending<Payload, Created>[],
    allocations: readonly RequestIdAllocation<Payload>[],
    appended: bigint,
  ): Promise<void> {
    const outcomes = await Promise.allSettled(allocations.map(this.log.complete));
    outcomes.forEach((outcome, index) => {
      const pending = open[index];
      if (!pending) return;
      settle(
        pending,
        outcome.status === 'fulfilled' ? { completed: outcome.value } : { error: outcome.reason },
      );
    });
    // A batch not wholly complete must be completed (by whoever comes next) before another.
    if (outcomes.every((outcome) => outcome.status === 'fulfilled'))
      this.#head = { revision: appended };
    else this.#invalidate();
  }

  /**
   * The store refused the batch: an intake at fault fails alone; a lost race (or a command
   * allocated before) reloads the head, completes it and checks the bindings again.
   */
  async #refused(
    error: unknown,
    open: readonly Pending<Payload, Created>[],
    creations: readonly RequestCreation<Created>[],
    attempt: number,
  ): Promise<void> {
    const blamed = blamedIntake(error, open, creations, this.#counter, this.#checkBindings);
    if (blamed) {
      settle(blamed.pending, { error: blamed.error });
      return;
    }
    if (!(error instanceof WrongExpectedVersion || error instanceof DuplicateEventId)) throw error;
    // A command allocated before is refused as either (its id at another revision of the
    // counter reads as a moved counter): check the bindings before the next append.
    this.#checkBindings = true;
    // Another allocator moved the counter (or took one of these commands): reload the head,
    // complete it, check the bindings again.
    this.#invalidate();
    await pause(attempt);
  }
}
