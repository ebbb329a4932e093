import { isTransientDatabaseError } from '../../database/transient.js';
import { isCogitaveError } from '../../runtime/errors.js';
import {
  describeGitHubError,
  githubStatus,
  isAlreadyExists,
  isTransientGitHubError,
} from '../client.js';

/** An error the reactor must not retry: the event is recorded as failed and skipped. */
export class PermanentReactorError extends Error {}

export type Classification = 'transient' | 'permanent' | 'unknown';

/** Whether retrying the same event can succeed: transient (forever), permanent (skip), unknown. */
export const classify = (error: unknown): Classification => {
  if (error instanceof PermanentReactorError) return 'permanent';
  if (isCogitaveError(error)) {
    // The store or a concurrent writer: the same step will succeed later.
    if (error.code === 'UNAVAILABLE' || error.code === 'WRONG_EXPECTED_VERSION') return 'transient';
    return 'permanent';
  }
  if (isTransientDatabaseError(error)) return 'transient';
  if (isTransientGitHubError(error)) return 'transient';
  const status = githubStatus(error);
  if (status === undefined) return 'unknown';
  // Credentials, permissions, a missing repository or base branch are repository-wide:
  // skipping would skip every event. Block and retry until an operator fixes it.
  if (status === 401 || status === 403 || status === 404) return 'transient';
  // "Already exists" that the look-up did not see yet, or a branch that moved: looking up
  // again on the next attempt resolves it.
  if (status === 409 || isAlreadyExists(error)) return 'transient';
  return status === 422 ? 'permanent' : 'unknown';
};

export const describeError = (error: unknown): string =>
  githubStatus(error) !== undefined || !(error instanceof Error)
    ? describeGitHubError(error)
    : error.message;
