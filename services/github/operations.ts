import type { Logger } from '../runtime/logger.js';
import { DEFAULT_CREATE_POLICY, type GitHubClient, type RetryPolicy } from './client.js';
import { ensureBranch, ensureFile, findBranchSha, readFile } from './operations/git.js';
import {
  closeIssueNotPlanned,
  ensureComment,
  ensureIntakeIssue,
  findIntakeIssue,
  type IssueRef,
} from './operations/issues.js';
import {
  closePullRequest,
  ensurePullRequest,
  findPullRequest,
  type PullRef,
} from './operations/pulls.js';
import type { RepositoryContext } from './operations/repo.js';

export type { IssueRef } from './operations/issues.js';
export type { PullRef } from './operations/pulls.js';

/**
 * The GitHub steps of the reactor, each idempotent: it looks the object up by its marker or
 * deterministic name first, creates it only when absent, and reports what it found or made.
 * Running any of them twice (a retry, a restart after a crash) leaves exactly one object.
 * Issues and comments: operations/issues.ts; pull requests: operations/pulls.ts; branches and
 * files: operations/git.ts.
 */
export interface RepositoryName {
  readonly owner: string;
  readonly repo: string;
}

export const parseRepository = (fullName: string): RepositoryName => {
  const [owner = '', repo = ''] = fullName.split('/');
  return { owner, repo };
};

export interface GitHubOperationsOptions {
  readonly client: GitHubClient;
  readonly repository: string;
  /** Unset: the repository's default branch, read once. */
  readonly baseBranch?: string | undefined;
  readonly logger: Logger;
  readonly createPolicy?: RetryPolicy;
}

export interface GitHubOperations {
  readonly repository: string;
  readonly client: GitHubClient;
  baseBranch(): Promise<string>;
  findIntakeIssue(requestId: string): Promise<IssueRef | undefined>;
  ensureIntakeIssue(
    input: { requestId: string; title: string; body: string },
    signal?: AbortSignal,
  ): Promise<IssueRef & { created: boolean }>;
  findPullRequest(branch: string): Promise<PullRef | undefined>;
  ensureProposalPullRequest(
    input: {
      branch: string;
      path: string;
      content: string;
      commitMessage: string;
      title: string;
      body: string;
      /** Default true: proposals wait for a maintainer to mark them ready and merge. */
      draft?: boolean;
    },
    signal?: AbortSignal,
  ): Promise<PullRef & { created: boolean }>;
  /** The commit `branch` points at; undefined when there is no such branch. */
  branchHead(branch: string): Promise<string | undefined>;
  /** Comments on an issue or pull request unless a comment carrying `marker` is there. */
  ensureComment(input: { number: number; marker: string; body: string }): Promise<void>;
  /** Closes a pull request (no-op when closed already). */
  closePullRequest(number: number): Promise<void>;
  /**
   * Closes an open issue as not planned, after a comment carrying `marker` (kept once); an
   * issue closed already is left as it is. Whether it was open.
   */
  closeIssueNotPlanned(input: { number: number; marker: string; body: string }): Promise<boolean>;
  /** The text of `path` on the base branch now; undefined when it is not there. */
  readBaseFile(path: string): Promise<string | undefined>;
  /** Makes `path` on `branch` (created from the base branch when absent) read `content`. */
  ensureFileOnBranch(
    input: { branch: string; path: string; content: string; commitMessage: string },
    signal?: AbortSignal,
  ): Promise<void>;
}

export const createGitHubOperations = (options: GitHubOperationsOptions): GitHubOperations => {
  const { client } = options;
  const { owner, repo } = parseRepository(options.repository);
  const ensuredLabels = new Set<string>();
  let baseBranch = options.baseBranch;
  const ctx: RepositoryContext = {
    client,
    octokit: client.octokit,
    repository: options.repository,
    owner,
    repo,
    logger: options.logger,
    policy: options.createPolicy ?? DEFAULT_CREATE_POLICY,
    baseBranch: async () => {
      if (baseBranch === undefined) {
        const { data } = await client.octokit.rest.repos.get({ owner, repo });
        baseBranch = data.default_branch;
      }
      return baseBranch;
    },
  };
  return {
    repository: options.repository,
    client,
    baseBranch: ctx.baseBranch,
    findIntakeIssue: (requestId) => findIntakeIssue(ctx, requestId),
    findPullRequest: (branch) => findPullRequest(ctx, branch),
    branchHead: (branch) => findBranchSha(ctx, branch),
    ensureComment: (input) => ensureComment(ctx, input),
    closePullRequest: (number) => closePullRequest(ctx, number),
    closeIssueNotPlanned: (input) => closeIssueNotPlanned(ctx, input),
    readBaseFile: async (path) => (await readFile(ctx, await ctx.baseBranch(), path))?.text,
    ensureFileOnBranch: async (input, signal) => {
      await ensureBranch(ctx, input.branch, signal);
      await ensureFile(ctx, input, signal);
    },
    ensureIntakeIssue: (input, signal) => ensureIntakeIssue(ctx, ensuredLabels, input, signal),
    ensureProposalPullRequest: (input, signal) => ensurePullRequest(ctx, input, signal),
  };
};
