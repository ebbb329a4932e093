import type { Logger } from '../runtime/logger.js';
import {
  CREATE_ONCE,
  DEFAULT_CREATE_POLICY,
  backoffMs,
  describeGitHubError,
  findOrCreate,
  githubStatus,
  isAlreadyExists,
  isTransientGitHubError,
  retryAfterSeconds,
  sleep,
  type GitHubClient,
  type RetryPolicy,
} from './client.js';
import { BASE_LABEL, INTAKE_LABEL, markerIn, requestLabel } from './markers.js';

/**
 * The GitHub steps of the reactor, each idempotent: it looks the object up by its marker or
 * deterministic name first, creates it only when absent, and reports what it found or made.
 * Running any of them twice (a retry, a restart after a crash) leaves exactly one object.
 */
export interface RepositoryName {
  readonly owner: string;
  readonly repo: string;
}

export const parseRepository = (fullName: string): RepositoryName => {
  const [owner = '', repo = ''] = fullName.split('/');
  return { owner, repo };
};

export interface IssueRef {
  readonly number: number;
  readonly url: string;
}

export interface PullRef {
  readonly number: number;
  readonly url: string;
  readonly state: string;
  readonly merged: boolean;
  /** The pull request's head commit. */
  readonly headSha: string;
}

export interface GitHubOperationsOptions {
  readonly client: GitHubClient;
  readonly repository: string;
  /** Unset: the repository's default branch, read once. */
  readonly baseBranch?: string | undefined;
  readonly logger: Logger;
  readonly createPolicy?: RetryPolicy;
}

const LABEL_COLORS: Record<string, string> = {
  [BASE_LABEL]: '5319e7',
  [INTAKE_LABEL]: '0e8a16',
};

/** Not found: 404, and GitHub's 409 "Git Repository is empty" for refs of an empty repository. */
const isAbsent = (error: unknown): boolean => githubStatus(error) === 404;

const isNotFoundOrEmpty = (error: unknown): boolean =>
  githubStatus(error) === 404 || githubStatus(error) === 409;

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
  const { client, logger } = options;
  const { octokit } = client;
  const { owner, repo } = parseRepository(options.repository);
  const policy = options.createPolicy ?? DEFAULT_CREATE_POLICY;
  const ensuredLabels = new Set<string>();
  let baseBranch = options.baseBranch;

  const context = (signal?: AbortSignal) => ({ client, logger, policy, signal });

  const resolveBaseBranch = async (): Promise<string> => {
    if (baseBranch === undefined) {
      const { data } = await octokit.rest.repos.get({ owner, repo });
      baseBranch = data.default_branch;
    }
    return baseBranch;
  };

  /** Label names are unique per repository, so a create can be retried freely: 422 = exists. */
  const ensureLabel = async (name: string): Promise<void> => {
    if (ensuredLabels.has(name)) return;
    try {
      await octokit.rest.issues.createLabel({
        owner,
        repo,
        name,
        color: LABEL_COLORS[name] ?? 'c5def5',
        description:
          name === BASE_LABEL
            ? 'Opened by Cogitave'
            : name === INTAKE_LABEL
              ? 'Cogitave request intake'
              : 'Cogitave request',
      });
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
    ensuredLabels.add(name);
  };

  const findIntakeIssue = async (requestId: string): Promise<IssueRef | undefined> => {
    const issues = await octokit.paginate(octokit.rest.issues.listForRepo, {
      owner,
      repo,
      labels: `${INTAKE_LABEL},${requestLabel(requestId)}`,
      state: 'all',
      per_page: 100,
    });
    const issue = issues.find(
      (candidate) =>
        candidate.pull_request === undefined && markerIn(candidate.body, 'request') === requestId,
    );
    return issue ? { number: issue.number, url: issue.html_url } : undefined;
  };

  const findPullRequest = async (branch: string): Promise<PullRef | undefined> => {
    const { data } = await octokit.rest.pulls.list({
      owner,
      repo,
      head: `${owner}:${branch}`,
      state: 'all',
      per_page: 100,
    });
    // Oldest first: should a twin ever exist, everyone agrees on the same one.
    const pull = data
      .filter((candidate) => candidate.head.ref === branch)
      .sort((a, b) => a.number - b.number)[0];
    return pull
      ? {
          number: pull.number,
          url: pull.html_url,
          state: pull.state,
          merged: pull.merged_at !== null,
          headSha: pull.head.sha,
        }
      : undefined;
  };

  const findBranchSha = async (branch: string): Promise<string | undefined> => {
    try {
      const { data } = await octokit.rest.git.getRef({ owner, repo, ref: `heads/${branch}` });
      return data.object.sha;
    } catch (error) {
      if (isNotFoundOrEmpty(error)) return undefined;
      throw error;
    }
  };

  const ensureBranch = async (branch: string, signal?: AbortSignal): Promise<void> => {
    const base = await resolveBaseBranch();
    await findOrCreate(context(signal), {
      what: `branch ${branch}`,
      find: () => findBranchSha(branch),
      create: async () => {
        const baseSha = await findBranchSha(base);
        if (baseSha === undefined) {
          throw Object.assign(
            new Error(`Base branch "${base}" does not exist in ${options.repository}`),
            {
              status: 404,
            },
          );
        }
        const { data } = await octokit.rest.git.createRef({
          owner,
          repo,
          ref: `refs/heads/${branch}`,
          sha: baseSha,
          ...CREATE_ONCE,
        });
        return data.object.sha;
      },
    });
  };

  const readFile = async (
    branch: string,
    path: string,
  ): Promise<{ sha: string; text: string } | undefined> => {
    try {
      const { data } = await octokit.rest.repos.getContent({ owner, repo, path, ref: branch });
      if (Array.isArray(data) || data.type !== 'file' || !('content' in data)) {
        throw Object.assign(new Error(`${path} on ${branch} is not a file`), { status: 422 });
      }
      return { sha: data.sha, text: Buffer.from(data.content, 'base64').toString('utf8') };
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw error;
    }
  };

  /**
   * Puts the file on the branch unless it already reads so, and answers the branch's head
   * then (the commit that made it read so). A PUT that succeeded but failed is seen by the
   * next read, so the loop never commits twice.
   */
  const ensureFile = async (
    input: { branch: string; path: string; content: string; commitMessage: string },
    signal?: AbortSignal,
  ): Promise<string | undefined> => {
    for (let attempt = 1; ; attempt += 1) {
      const current = await readFile(input.branch, input.path);
      if (current?.text === input.content) return findBranchSha(input.branch);
      client.stats.createAttempts += 1;
      try {
        const { data } = await octokit.rest.repos.createOrUpdateFileContents({
          owner,
          repo,
          path: input.path,
          branch: input.branch,
          message: input.commitMessage,
          content: Buffer.from(input.content, 'utf8').toString('base64'),
          ...(current ? { sha: current.sha } : {}),
          ...CREATE_ONCE,
        });
        return data.commit.sha ?? (await findBranchSha(input.branch));
      } catch (error) {
        // 409: the branch moved (sha mismatch); 422: a file appeared meanwhile. Read again.
        const status = githubStatus(error);
        const conflict = status === 409 || status === 422;
        if (!conflict && !isTransientGitHubError(error)) throw error;
        if (attempt >= policy.attempts) {
          // Still conflicting after every attempt: the reactor retries the whole step later.
          throw conflict
            ? Object.assign(new Error(`${input.path} on ${input.branch} kept changing`), {
                status: 409,
              })
            : error;
        }
        client.stats.createRetries += 1;
        const waitMs = backoffMs(
          attempt,
          policy,
          (retryAfterSeconds(error) ?? 0) * client.timeScaleMs,
        );
        logger.info(
          {
            path: input.path,
            branch: input.branch,
            attempt,
            waitMs,
            error: describeGitHubError(error),
          },
          'file commit failed; will read the branch before retrying',
        );
        await sleep(waitMs, signal);
      }
    }
  };

  const operations: GitHubOperations = {
    repository: options.repository,
    client,
    baseBranch: resolveBaseBranch,
    findIntakeIssue,
    findPullRequest,
    branchHead: findBranchSha,

    ensureComment: async ({ number, marker, body }) => {
      const comments = await octokit.paginate(octokit.rest.issues.listComments, {
        owner,
        repo,
        issue_number: number,
        per_page: 100,
      });
      if (comments.some((comment) => comment.body?.includes(marker))) return;
      await octokit.rest.issues.createComment({
        owner,
        repo,
        issue_number: number,
        body: `${marker}\n${body}`,
        ...CREATE_ONCE,
      });
    },

    closePullRequest: async (number) => {
      const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: number });
      if (data.state === 'closed') return;
      await octokit.rest.pulls.update({ owner, repo, pull_number: number, state: 'closed' });
    },

    closeIssueNotPlanned: async ({ number, marker, body }) => {
      const { data } = await octokit.rest.issues.get({ owner, repo, issue_number: number });
      if (data.state === 'closed') return false;
      await operations.ensureComment({ number, marker, body });
      await octokit.rest.issues.update({
        owner,
        repo,
        issue_number: number,
        state: 'closed',
        state_reason: 'not_planned',
      });
      return true;
    },

    readBaseFile: async (path) => (await readFile(await resolveBaseBranch(), path))?.text,
    ensureFileOnBranch: async (input, signal) => {
      await ensureBranch(input.branch, signal);
      await ensureFile(input, signal);
    },

    ensureIntakeIssue: async ({ requestId, title, body }, signal) => {
      const labels = [BASE_LABEL, INTAKE_LABEL, requestLabel(requestId)];
      // Labels first: the look-up filters by them, and an issue must never miss its label.
      for (const label of labels) await ensureLabel(label);
      const { value, created } = await findOrCreate(context(signal), {
        what: `intake issue of ${requestId}`,
        find: () => findIntakeIssue(requestId),
        create: async () => {
          const { data } = await octokit.rest.issues.create({
            owner,
            repo,
            title,
            body,
            labels,
            ...CREATE_ONCE,
          });
          return { number: data.number, url: data.html_url };
        },
      });
      return { ...value, created };
    },

    ensureProposalPullRequest: async (input, signal) => {
      // The pull request first: once it exists (even merged, its branch deleted) nothing else
      // is redone.
      const existing = await findPullRequest(input.branch);
      if (existing) return { ...existing, created: false };
      await ensureBranch(input.branch, signal);
      const headSha = await ensureFile(input, signal);
      const base = await resolveBaseBranch();
      let draft = input.draft ?? true;
      const { value, created } = await findOrCreate(context(signal), {
        what: `pull request of ${input.branch}`,
        find: () => findPullRequest(input.branch),
        knownAbsent: true,
        create: async () => {
          try {
            const { data } = await octokit.rest.pulls.create({
              owner,
              repo,
              head: input.branch,
              base,
              title: input.title,
              body: input.body,
              draft,
              ...CREATE_ONCE,
            });
            return {
              number: data.number,
              url: data.html_url,
              state: data.state,
              merged: false,
              headSha: data.head.sha,
            };
          } catch (error) {
            // Plans without draft pull requests answer 422; an open one still needs a merge.
            if (draft && githubStatus(error) === 422 && /draft/i.test(describeGitHubError(error))) {
              logger.warn(
                { repository: options.repository },
                'draft pull requests unavailable; opening a regular one',
              );
              draft = false;
              throw Object.assign(new Error('retry without draft'), { status: 503 });
            }
            throw error;
          }
        },
      });
      // The commit made here, not what the head may be by the time the look-up answers.
      return { ...value, headSha: headSha ?? value.headSha, created };
    },
  };
  return operations;
};
