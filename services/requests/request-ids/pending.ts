import type { CompletedAllocation, IntakeToAllocate } from './types.js';

/** An intake waiting in this process for its allocation, and the promise it answers. */
export interface Pending<Payload, Created> {
  readonly intake: IntakeToAllocate<Payload>;
  /** The epoch its binding check started in; -1: not checked in a usable epoch. */
  checkedIn: number;
  settled: boolean;
  readonly resolve: (completed: CompletedAllocation<Payload, Created>) => void;
  readonly reject: (error: unknown) => void;
}

export type Outcome<Payload, Created> =
  { readonly completed: CompletedAllocation<Payload, Created> } | { readonly error: unknown };

/** Answers a pending intake once; later outcomes of it are ignored. */
export const settle = <Payload, Created>(
  pending: Pending<Payload, Created>,
  outcome: Outcome<Payload, Created>,
): void => {
  if (pending.settled) return;
  pending.settled = true;
  if ('completed' in outcome) pending.resolve(outcome.completed);
  else pending.reject(outcome.error);
};

export const unsettled = <Payload, Created>(
  pendings: readonly Pending<Payload, Created>[],
): Pending<Payload, Created>[] => pendings.filter((pending) => !pending.settled);
