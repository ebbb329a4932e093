import { decidedEventIds } from '../../commands/decided.js';
import { DuplicateEventId } from '../../event-store/errors.js';
import { CogitaveError, Unavailable } from '../../runtime/errors.js';
import { allocationEventId, creationAppend } from './allocation-log.js';
import type { Pending } from './pending.js';
import type { RequestCreation } from './types.js';

/**
 * Which intake of a refused batch append is at fault, when one is: it alone fails, and the
 * others are allocated again without it. Pure: the store's refusal and the batch in, a verdict out.
 */

export interface Refusal<Payload, Created> {
  readonly pending: Pending<Payload, Created>;
  readonly error: CogitaveError;
}

/** A command id already allocated in another year's counter: that command only. */
const reusedInAnotherYear = <Payload, Created>(
  error: DuplicateEventId,
  open: readonly Pending<Payload, Created>[],
  counterStreamId: string,
): Refusal<Payload, Created> | undefined => {
  if (error.details.streamId === counterStreamId) return undefined;
  const reused = open.find(
    (pending) => allocationEventId(pending.intake.commandId) === error.details.eventId,
  );
  return (
    reused && {
      pending: reused,
      error: new CogitaveError(
        'FAILED_PRECONDITION',
        `commandId ${reused.intake.commandId} was already used for an intake in another year; retry with the original command's metadata, or use a new commandId for a new intake.`,
        { commandId: reused.intake.commandId },
      ),
    }
  );
};

/**
 * After DuplicateEventId in atomic mode, with the bindings checked (so no open command is
 * allocated already): the command whose request event the store holds in another stream.
 */
const misusedCommand = <Payload, Created>(
  error: DuplicateEventId,
  open: readonly Pending<Payload, Created>[],
  creations: readonly RequestCreation<Created>[],
): Refusal<Payload, Created> | undefined => {
  const index = creations.findIndex(
    (creation) =>
      creation.streamId !== error.details.streamId &&
      decidedEventIds(creationAppend(creation)).some((id) => id === error.details.eventId),
  );
  const misused = index === -1 ? undefined : open[index];
  return (
    misused && {
      pending: misused,
      error: new CogitaveError(
        'FAILED_PRECONDITION',
        `commandId ${misused.intake.commandId} was already used for another command; use a new commandId for a new intake.`,
        { commandId: misused.intake.commandId },
      ),
    }
  );
};

/**
 * The intake a refused append blames, if any. A command id misused for another command is
 * only believed once the bindings were checked (`bindingsChecked`): a retried command's
 * reused ids look alike.
 */
export const blamedIntake = <Payload, Created>(
  error: unknown,
  open: readonly Pending<Payload, Created>[],
  creations: readonly RequestCreation<Created>[],
  counterStreamId: string,
  bindingsChecked: boolean,
): Refusal<Payload, Created> | undefined => {
  if (!(error instanceof DuplicateEventId)) return undefined;
  return (
    reusedInAnotherYear(error, open, counterStreamId) ??
    (bindingsChecked ? misusedCommand(error, open, creations) : undefined)
  );
};

/** Attempts ran out: too many allocators raced for the year's counter. */
export const tooManyIntakes = (maxAttempts: number, year: number): Unavailable =>
  new Unavailable(
    `Could not allocate a request id after ${maxAttempts} attempts: too many intakes at once. Retry the intake with the same commandId.`,
    { year },
  );
