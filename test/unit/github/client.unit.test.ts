import { describe, expect, it } from 'vitest';
import {
  backoffMs,
  describeGitHubError,
  isAlreadyExists,
  isTransientGitHubError,
  retryAfterSeconds,
} from '../../../services/github/client.js';

const request = {
  method: 'POST',
  url: 'https://api.github.com/repos/o/r/issues',
  headers: { authorization: 'token ghp_secret' },
};

/** The shape of Octokit's RequestError (name, status, message, request, response). */
class RequestError extends Error {
  override readonly name = 'HttpError';
  constructor(
    message: string,
    readonly status: number,
    readonly options: {
      request: typeof request;
      response?: { status: number; url: string; headers: Record<string, string>; data: unknown };
    },
  ) {
    super(message);
  }
  get request() {
    return this.options.request;
  }
  get response() {
    return this.options.response;
  }
}

const githubError = (
  status: number,
  data: unknown,
  headers: Record<string, string> = {},
): RequestError =>
  new RequestError(
    typeof data === 'object' && data && 'message' in data ? String(data.message) : 'error',
    status,
    {
      request,
      response: { status, url: request.url, headers, data },
    },
  );

describe('GitHub error classification', () => {
  it.each([
    [
      'a label',
      {
        message: 'Validation Failed',
        errors: [{ resource: 'Label', code: 'already_exists', field: 'name' }],
      },
    ],
    ['a ref', { message: 'Reference already exists' }],
    [
      'a pull request',
      {
        message: 'Validation Failed',
        errors: [
          {
            resource: 'PullRequest',
            code: 'custom',
            message: 'A pull request already exists for o:cogitave/req-2026-0001-p1.',
          },
        ],
      },
    ],
  ])('given 422 for %s that exists, when classified, then it means found', (_what, data) => {
    expect(isAlreadyExists(githubError(422, data))).toBe(true);
  });

  it('given another 422, when classified, then it is neither found nor transient', () => {
    const error = githubError(422, {
      message: 'Validation Failed',
      errors: [{ code: 'invalid', field: 'title' }],
    });

    expect(isAlreadyExists(error)).toBe(false);
    expect(isTransientGitHubError(error)).toBe(false);
  });

  it.each([
    ['500', githubError(500, { message: 'Server Error' })],
    ['502', githubError(502, { message: 'Bad Gateway' })],
    ['429', githubError(429, { message: 'Too many' }, { 'retry-after': '3' })],
    [
      'a secondary rate limit',
      githubError(
        403,
        { message: 'You have exceeded a secondary rate limit.' },
        { 'retry-after': '2' },
      ),
    ],
    [
      'a primary rate limit',
      githubError(403, { message: 'API rate limit exceeded' }, { 'x-ratelimit-remaining': '0' }),
    ],
    ['a network failure', new RequestError('other side closed', 500, { request })],
    [
      'a timeout',
      Object.assign(new Error('The operation was aborted due to timeout'), {
        name: 'TimeoutError',
      }),
    ],
  ])('given %s, when classified, then it is transient', (_what, error) => {
    expect(isTransientGitHubError(error)).toBe(true);
  });

  it.each([
    ['401', githubError(401, { message: 'Bad credentials' })],
    ['a forbidden 403', githubError(403, { message: 'Resource not accessible by integration' })],
    ['404', githubError(404, { message: 'Not Found' })],
  ])('given %s, when classified, then it is not transient', (_what, error) => {
    expect(isTransientGitHubError(error)).toBe(false);
  });

  it('given an error, when described, then status and message show and the token does not', () => {
    const error = githubError(500, { message: 'Server Error' });

    expect(describeGitHubError(error)).toBe('500 Server Error');
    expect(describeGitHubError(error)).not.toContain('ghp_secret');
    expect(retryAfterSeconds(githubError(429, {}, { 'retry-after': '7' }))).toBe(7);
    expect(retryAfterSeconds(error)).toBeUndefined();
  });

  it('given attempts, when the backoff is computed, then it grows, is capped and honours retry-after', () => {
    const policy = { initialDelayMs: 100, maxDelayMs: 1000 };

    expect(backoffMs(1, policy)).toBeGreaterThanOrEqual(50);
    expect(backoffMs(1, policy)).toBeLessThanOrEqual(100);
    expect(backoffMs(10, policy)).toBeLessThanOrEqual(1000);
    expect(backoffMs(1, policy, 5000)).toBe(5000);
  });
});
