import { sleep } from '../runtime/sleep.js';
import { createAppAuth } from '@octokit/auth-app';
import { retry } from '@octokit/plugin-retry';
import { throttling, type ThrottlingOptions } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import type { Secret } from '../runtime/config.js';
import type { Logger } from '../runtime/logger.js';

/**
 * Octokit as the reactor uses it: throttled (primary and secondary rate limits, bounded
 * retries), reads retried by @octokit/plugin-retry, every attempt bounded by a timeout, token or
 * GitHub App auth, and a base URL from the configuration (GitHub Enterprise, tests).
 *
 * plugin-retry also retries POSTs that fail with a 5xx, and a create that succeeded but
 * answered 5xx (or timed out) would then make a twin. Creates therefore go through
 * `findOrCreate`: they are sent with `request.retries: 0`, and before every attempt the object
 * is looked up again (by marker or deterministic name); a 422 "already exists" means found.
 */
export const GitHubOctokit = Octokit.plugin(retry, throttling);
export type GitHubOctokit = InstanceType<typeof GitHubOctokit>;

export type GitHubAuth =
  | { readonly kind: 'token'; readonly token: Secret }
  | {
      readonly kind: 'app';
      readonly appId: number;
      readonly privateKey: Secret;
      readonly installationId: number;
    };

export interface GitHubClientOptions {
  readonly apiUrl: string;
  readonly auth: GitHubAuth;
  readonly logger: Logger;
  /** Per attempt, including reading the body (default 30 s). */
  readonly requestTimeoutMs?: number;
  /** Retries of reads on 5xx/network errors by plugin-retry (default 3). */
  readonly readRetries?: number;
  /** Retries after a primary or secondary rate limit (default 3). */
  readonly rateLimitRetries?: number;
  /** A primary rate limit resetting later than this is not waited for (default 15 min). */
  readonly maxRateLimitWaitSeconds?: number;
  /**
   * Milliseconds per second of `retry-after` and of plugin-retry's backoff (default 1000).
   * Tests shrink it; production leaves it alone.
   */
  readonly timeScaleMs?: number;
  /**
   * GitHub asks integrations to leave a second between writes (plugin-throttling's default
   * spacing, 3 s for writes that notify). `false` removes the spacing: tests against a local
   * double only.
   */
  readonly spaceWrites?: boolean;
  readonly userAgent?: string;
}

/** Figures for operators and the fault suite. */
export interface GitHubClientStats {
  /** Calls made by our code (one per Octokit request, whatever its retries). */
  operations: number;
  /** HTTP attempts that left the process (operations plus every retry). */
  attempts: number;
  /** Attempts that failed: status ≥ 400, network error or timeout. */
  failedAttempts: number;
  timeouts: number;
  rateLimited: number;
  /** Creates sent (first attempts and retries of `findOrCreate`). */
  createAttempts: number;
  /** Creates retried by `findOrCreate` after a transient failure. */
  createRetries: number;
  /** Creates answered 422 "already exists" (treated as found). */
  alreadyExists: number;
  /** Objects a look-up found after a create had failed: twins avoided. */
  foundAfterFailedCreate: number;
  /** `x-ratelimit-remaining` of the newest answer that carried it; undefined before any. */
  rateLimitRemaining?: number;
}

export interface GitHubClient {
  readonly octokit: GitHubOctokit;
  readonly stats: GitHubClientStats;
  readonly timeScaleMs: number;
}

const emptyStats = (): GitHubClientStats => ({
  operations: 0,
  attempts: 0,
  failedAttempts: 0,
  timeouts: 0,
  rateLimited: 0,
  createAttempts: 0,
  createRetries: 0,
  alreadyExists: 0,
  foundAfterFailedCreate: 0,
});

type ThrottleGroup = NonNullable<ThrottlingOptions['write']>;

/**
 * A stand-in for plugin-throttling's Bottleneck group that schedules at once: the plugin only
 * calls `group.key(id).schedule(options, fn, ...args)`. Used when `spaceWrites` is false.
 */
const unspacedGroup = (): ThrottleGroup => {
  const limiter = {
    schedule: (_options: unknown, fn: (...args: unknown[]) => unknown, ...args: unknown[]) =>
      Promise.resolve(fn(...args)),
  };
  return { key: () => limiter } as unknown as ThrottleGroup;
};

export const createGitHubClient = (options: GitHubClientOptions): GitHubClient => {
  const stats = emptyStats();
  const timeScaleMs = options.timeScaleMs ?? 1000;
  const timeoutMs = options.requestTimeoutMs ?? 30_000;
  const rateLimitRetries = options.rateLimitRetries ?? 3;
  const maxWait = options.maxRateLimitWaitSeconds ?? 15 * 60;
  const log = options.logger.child({ component: 'github-client' });

  // Every attempt passes here: it is where timeouts are enforced and attempts counted.
  const timedFetch = async (
    input: string | URL | Request,
    init?: RequestInit,
  ): Promise<Response> => {
    stats.attempts += 1;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    try {
      const response = await fetch(input, { ...init, signal });
      if (response.status >= 400) stats.failedAttempts += 1;
      return response;
    } catch (error) {
      stats.failedAttempts += 1;
      if (timeout.aborted) stats.timeouts += 1;
      throw error;
    }
  };

  const onLimit =
    (kind: 'primary' | 'secondary') =>
    (
      retryAfter: number,
      request: { method: string; url: string },
      _octokit: unknown,
      retryCount: number,
    ): boolean => {
      stats.rateLimited += 1;
      const retrying = retryCount < rateLimitRetries && retryAfter <= maxWait;
      log.warn(
        {
          kind,
          retryAfterSeconds: retryAfter,
          retryCount,
          retrying,
          method: request.method,
          url: request.url,
        },
        'GitHub rate limit',
      );
      return retrying;
    };

  const auth =
    options.auth.kind === 'token'
      ? { auth: options.auth.token.reveal() }
      : {
          authStrategy: createAppAuth,
          auth: {
            appId: options.auth.appId,
            privateKey: options.auth.privateKey.reveal(),
            installationId: options.auth.installationId,
          },
        };

  const octokit = new GitHubOctokit({
    ...auth,
    baseUrl: options.apiUrl,
    userAgent: options.userAgent ?? 'cogitave-core',
    request: { fetch: timedFetch },
    // Octokit's own messages carry request options; keep only the sentence, at low levels.
    log: {
      debug: (message: string) => {
        log.trace(message);
      },
      info: (message: string) => {
        log.trace(message);
      },
      warn: (message: string) => {
        log.warn(message);
      },
      error: (message: string) => {
        log.debug(message);
      },
    },
    retry: { retries: options.readRetries ?? 3, retryAfterBaseValue: timeScaleMs },
    throttle: {
      onRateLimit: onLimit('primary'),
      onSecondaryRateLimit: onLimit('secondary'),
      retryAfterBaseValue: timeScaleMs,
      ...(options.spaceWrites === false
        ? { write: unspacedGroup(), notifications: unspacedGroup() }
        : {}),
    },
  });
  // Registered last, so it is the outermost wrapper: one call per operation, retries inside.
  octokit.hook.wrap('request', async (request, requestOptions) => {
    stats.operations += 1;
    try {
      const response = await request(requestOptions);
      recordRateLimit(stats, response.headers);
      return response;
    } catch (error) {
      recordRateLimit(stats, (error as ErrorShape | undefined)?.response?.headers);
      throw error;
    }
  });
  return { octokit, stats, timeScaleMs };
};

// ---------------------------------------------------------------------------------------------
// Errors

interface ErrorShape {
  status?: unknown;
  name?: unknown;
  message?: unknown;
  response?: { headers?: Record<string, string | undefined>; data?: unknown };
}

/** Keeps the quota GitHub says is left (every REST answer, errors included, carries it). */
const recordRateLimit = (
  stats: GitHubClientStats,
  headers: Record<string, string | number | undefined> | undefined,
): void => {
  const remaining = Number(headers?.['x-ratelimit-remaining']);
  if (headers?.['x-ratelimit-remaining'] !== undefined && Number.isFinite(remaining))
    stats.rateLimitRemaining = remaining;
};

export const githubStatus = (error: unknown): number | undefined => {
  const status = (error as ErrorShape | undefined)?.status;
  return typeof status === 'number' ? status : undefined;
};

const responseText = (error: unknown): string => {
  const shape = error as ErrorShape | undefined;
  const data = shape?.response?.data;
  return `${typeof shape?.message === 'string' ? shape.message : ''} ${
    data === undefined ? '' : JSON.stringify(data)
  }`;
};

const isRateLimit = (error: unknown): boolean => {
  const headers = (error as ErrorShape | undefined)?.response?.headers ?? {};
  return (
    headers['x-ratelimit-remaining'] === '0' ||
    headers['retry-after'] !== undefined ||
    /rate limit/i.test(responseText(error))
  );
};

/** 422 with "already exists" (labels, refs, pull requests) or GitHub's `already_exists` code. */
export const isAlreadyExists = (error: unknown): boolean =>
  githubStatus(error) === 422 && /already[ _]exists?/i.test(responseText(error));

/**
 * Worth another attempt: no response (network, timeout: status 500 without a response from
 * Octokit), 5xx, 408, 429 and rate-limited 403s.
 */
export const isTransientGitHubError = (error: unknown): boolean => {
  const shape = error as ErrorShape | undefined;
  if (shape?.name === 'AbortError' || shape?.name === 'TimeoutError') return true;
  const status = githubStatus(error);
  if (status === undefined) return error instanceof TypeError; // fetch's network failures
  if (status >= 500 || status === 408 || status === 429) return true;
  return status === 403 && isRateLimit(error);
};

/** Seconds GitHub asked us to wait, if it did. */
export const retryAfterSeconds = (error: unknown): number | undefined => {
  const value = (error as ErrorShape | undefined)?.response?.headers?.['retry-after'];
  const seconds = Number(value);
  return value !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
};

/** What to log about a GitHub error: status and message, never headers or request options. */
export const describeGitHubError = (error: unknown): string => {
  const shape = error as ErrorShape | undefined;
  const status = githubStatus(error);
  const message = typeof shape?.message === 'string' ? shape.message : String(error);
  return status === undefined ? message : `${status} ${message}`;
};

// ---------------------------------------------------------------------------------------------
// Look up, create, look up again

export interface RetryPolicy {
  /** Attempts of one create before giving up with the last transient error (default 5). */
  readonly attempts: number;
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_CREATE_POLICY: RetryPolicy = {
  attempts: 5,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
};

/** Exponential backoff with jitter (50–100 % of the step), at least what GitHub asked for. */
export const backoffMs = (
  attempt: number,
  policy: Pick<RetryPolicy, 'initialDelayMs' | 'maxDelayMs'>,
  minimumMs = 0,
): number => {
  const step = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.max(minimumMs, Math.round(step * (0.5 + Math.random() / 2)));
};

/** Request options for a create: never retried by plugin-retry (see the module comment). */
export const CREATE_ONCE = { request: { retries: 0 } } as const;

export interface FindOrCreate<T> {
  /** What is being made, for logs: `intake issue of req-2026-0001`. */
  readonly what: string;
  /** Looks the object up by its marker or deterministic name; undefined when absent. */
  readonly find: () => Promise<T | undefined>;
  /** Creates it; must pass `CREATE_ONCE` (or otherwise disable plugin-retry). */
  readonly create: () => Promise<T>;
  /** The caller has just looked it up and found nothing: skip the first look-up. */
  readonly knownAbsent?: boolean;
}

export interface FindOrCreateContext {
  readonly client: GitHubClient;
  readonly logger: Logger;
  readonly policy?: RetryPolicy;
  readonly signal?: AbortSignal;
}

/**
 * Look up → create → on failure look up again before the next attempt. A failed look-up
 * throws to the caller (the reactor retries the whole step); a create is attempted at most
 * `policy.attempts` times.
 */
export const findOrCreate = async <T>(
  context: FindOrCreateContext,
  op: FindOrCreate<T>,
): Promise<{ value: T; created: boolean }> => {
  const policy = context.policy ?? DEFAULT_CREATE_POLICY;
  const { stats } = context.client;
  let lastError: unknown;
  for (let attempt = 1; attempt <= policy.attempts; attempt += 1) {
    const found = attempt === 1 && op.knownAbsent === true ? undefined : await op.find();
    if (found !== undefined) {
      if (lastError !== undefined) stats.foundAfterFailedCreate += 1;
      return { value: found, created: false };
    }
    stats.createAttempts += 1;
    try {
      return { value: await op.create(), created: true };
    } catch (error) {
      lastError = error;
      if (isAlreadyExists(error)) {
        stats.alreadyExists += 1;
        context.logger.debug({ what: op.what, attempt }, 'already exists on GitHub; looking it up');
        continue;
      }
      if (!isTransientGitHubError(error)) throw error;
      stats.createRetries += 1;
      const waitMs = backoffMs(
        attempt,
        policy,
        (retryAfterSeconds(error) ?? 0) * context.client.timeScaleMs,
      );
      context.logger.info(
        { what: op.what, attempt, waitMs, error: describeGitHubError(error) },
        'create failed; will look up before retrying',
      );
      await sleep(waitMs, context.signal);
    }
  }
  // One last look: the final attempt may have succeeded despite its error.
  const found = await op.find();
  if (found !== undefined) {
    stats.foundAfterFailedCreate += 1;
    return { value: found, created: false };
  }
  throw lastError;
};

export { sleep };
