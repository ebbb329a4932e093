import { retry } from '@octokit/plugin-retry';
import { throttling, type ThrottlingOptions } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import type { GitHubDouble } from '../../support/github-double/index.js';

/** Octokit clients pointed at the double, as the product's reactor builds them. */

export const quiet = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

export const OWNER = 'acme';
export const REPO = 'widgets';

export const plainOctokit = (github: GitHubDouble, auth = 'test-token'): Octokit =>
  new Octokit({ auth, baseUrl: github.url, log: quiet });

// plugin-throttling spaces every write 1 s apart (issue and pull request creations 3 s) through
// module-wide Bottleneck groups. Tests hand it pass-through groups so they exercise its retry
// decisions, not its pacing.
const passThrough = {
  key: () => ({
    schedule: (_options: unknown, task: () => unknown) => Promise.resolve(task()),
  }),
} as unknown as NonNullable<ThrottlingOptions['write']>;

/** What the throttling plugin reported: the `retryAfter` of each limit it hit. */
export interface LimitsSeen {
  readonly secondary: number[];
  readonly primary: number[];
}

const ResilientOctokit = Octokit.plugin(retry, throttling);
export type ResilientOctokit = InstanceType<typeof ResilientOctokit>;

/**
 * Octokit with plugin-retry and plugin-throttling, their waits shortened to milliseconds
 * (a `retry-after: 1` becomes 5 ms) and at most two retries per limit.
 */
export const resilientOctokit = (
  github: GitHubDouble,
  seen: LimitsSeen = { secondary: [], primary: [] },
): ResilientOctokit =>
  new ResilientOctokit({
    auth: 'test-token',
    baseUrl: github.url,
    log: quiet,
    retry: { retryAfterBaseValue: 5 },
    throttle: {
      retryAfterBaseValue: 5,
      fallbackSecondaryRateRetryAfter: 1,
      write: passThrough,
      notifications: passThrough,
      onSecondaryRateLimit: (retryAfter, _options, _octokit, retryCount) => {
        seen.secondary.push(retryAfter);
        return retryCount < 2;
      },
      onRateLimit: (retryAfter, _options, _octokit, retryCount) => {
        seen.primary.push(retryAfter);
        return retryCount < 2;
      },
    },
  });

/** What a failed Octokit call rejects with (a RequestError), as far as these tests read it. */
export interface Failure {
  readonly status: number;
  readonly message: string;
  readonly response: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string | undefined>>;
    readonly data: {
      readonly message: string;
      readonly errors?: readonly Record<string, unknown>[];
      readonly status?: string;
    };
  };
}

/** The error of a call that must fail. */
export const failureOf = async (call: Promise<unknown>): Promise<Failure> => {
  try {
    await call;
  } catch (error) {
    return error as Failure;
  }
  throw new Error('Expected the call to fail');
};

/** The status of a call that must fail. */
export const statusOf = async (call: Promise<unknown>): Promise<number> =>
  (await failureOf(call)).status;

/** The status a call ended with, success or failure. */
export const settledStatus = (call: Promise<{ status: number }>): Promise<number> =>
  call.then(
    (response) => response.status,
    (error: unknown) => (error as Failure).status,
  );
