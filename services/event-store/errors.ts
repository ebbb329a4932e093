import { CogitaveError } from '../runtime/errors.js';
import type { ExpectedRevision } from './types.js';

const describeExpectation = (expected: ExpectedRevision): string =>
  typeof expected === 'bigint' ? `revision ${expected}` : expected;

/** The stream is not where the caller expected it: reload, decide again, retry. */
export class WrongExpectedVersion extends CogitaveError {
  readonly streamId: string;
  readonly expected: ExpectedRevision;
  /** Current revision, or null when the stream does not exist. */
  readonly actual: bigint | null;

  constructor(streamId: string, expected: ExpectedRevision, actual: bigint | null) {
    super(
      'WRONG_EXPECTED_VERSION',
      `Stream "${streamId}" was expected at ${describeExpectation(expected)} but ${
        actual === null ? 'does not exist' : `is at revision ${actual}`
      }; reload it and retry.`,
      {
        streamId,
        expected: typeof expected === 'bigint' ? expected.toString() : expected,
        actual: actual === null ? null : actual.toString(),
      },
    );
    this.streamId = streamId;
    this.expected = expected;
    this.actual = actual;
  }
}

/** An event id was reused for a different event (another stream or another place). */
export class DuplicateEventId extends CogitaveError {
  constructor(eventId: string, streamId: string) {
    super(
      'DUPLICATE_EVENT_ID',
      `Event id ${eventId} is already used by another event (in stream "${streamId}"); give each new event a fresh UUID.`,
      { eventId, streamId },
    );
  }
}
