import type { Logger } from '../../runtime/logger.js';
import type { GitHubClient, RetryPolicy } from '../client.js';

/**
 * What every GitHub step shares: the client, the repository's coordinates, the create policy,
 * and the base branch (configured, or read once from the repository).
 */
export interface RepositoryContext {
  readonly client: GitHubClient;
  readonly octokit: GitHubClient['octokit'];
  /** owner/name. */
  readonly repository: string;
  readonly owner: string;
  readonly repo: string;
  readonly logger: Logger;
  readonly policy: RetryPolicy;
  readonly baseBranch: () => Promise<string>;
}

/** What `findOrCreate` takes, for one step. */
export const createContext = (ctx: RepositoryContext, signal?: AbortSignal) => ({
  client: ctx.client,
  logger: ctx.logger,
  policy: ctx.policy,
  signal,
});
