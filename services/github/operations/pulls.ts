import { CREATE_ONCE, describeGitHubError, findOrCreate, githubStatus } from '../client.js';
import { ensureBranch, ensureFile, type FileInput } from './git.js';
import { createContext, type RepositoryContext } from './repo.js';

/** Pull requests: found by head branch, opened once (draft when the plan allows), closed. */
export interface PullRef {
  readonly number: number;
  readonly url: string;
  readonly state: string;
  readonly merged: boolean;
  /** The pull request's head commit. */
  readonly headSha: string;
}

export interface PullRequestInput extends FileInput {
  title: string;
  body: string;
  /** Default true: proposals wait for a maintainer to mark them ready and merge. */
  draft?: boolean;
}

export const findPullRequest = async (
  ctx: RepositoryContext,
  branch: string,
): Promise<PullRef | undefined> => {
  const { octokit, owner, repo } = ctx;
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

/** Closes a pull request (no-op when closed already). */
export const closePullRequest = async (ctx: RepositoryContext, number: number): Promise<void> => {
  const { octokit, owner, repo } = ctx;
  const { data } = await octokit.rest.pulls.get({ owner, repo, pull_number: number });
  if (data.state === 'closed') return;
  await octokit.rest.pulls.update({ owner, repo, pull_number: number, state: 'closed' });
};

/** The branch, the commit of the file and the pull request, each made unless it exists. */
export const ensurePullRequest = async (
  ctx: RepositoryContext,
  input: PullRequestInput,
  signal?: AbortSignal,
): Promise<PullRef & { created: boolean }> => {
  const { octokit, owner, repo, logger } = ctx;
  // The pull request first: once it exists (even merged, its branch deleted) nothing else
  // is redone.
  const existing = await findPullRequest(ctx, input.branch);
  if (existing) return { ...existing, created: false };
  await ensureBranch(ctx, input.branch, signal);
  const headSha = await ensureFile(ctx, input, signal);
  const base = await ctx.baseBranch();
  let draft = input.draft ?? true;
  const { value, created } = await findOrCreate(createContext(ctx, signal), {
    what: `pull request of ${input.branch}`,
    find: () => findPullRequest(ctx, input.branch),
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
            { repository: ctx.repository },
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
};
