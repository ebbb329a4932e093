import {
  CREATE_ONCE,
  backoffMs,
  describeGitHubError,
  findOrCreate,
  githubStatus,
  isTransientGitHubError,
  retryAfterSeconds,
  sleep,
} from '../client.js';
import { createContext, type RepositoryContext } from './repo.js';

/** Branches and files: look-ups, and idempotent creates and commits. */

/** Not found: 404, and GitHub's 409 "Git Repository is empty" for refs of an empty repository. */
const isAbsent = (error: unknown): boolean => githubStatus(error) === 404;

const isNotFoundOrEmpty = (error: unknown): boolean =>
  githubStatus(error) === 404 || githubStatus(error) === 409;

export interface FileInput {
  branch: string;
  path: string;
  content: string;
  commitMessage: string;
}

/** The commit `branch` points at; undefined when there is no such branch. */
export const findBranchSha = async (
  ctx: RepositoryContext,
  branch: string,
): Promise<string | undefined> => {
  const { octokit, owner, repo } = ctx;
  try {
    const { data } = await octokit.rest.git.getRef({ owner, repo, ref: `heads/${branch}` });
    return data.object.sha;
  } catch (error) {
    if (isNotFoundOrEmpty(error)) return undefined;
    throw error;
  }
};

/** Creates `branch` from the base branch's head unless it exists. */
export const ensureBranch = async (
  ctx: RepositoryContext,
  branch: string,
  signal?: AbortSignal,
): Promise<void> => {
  const { octokit, owner, repo } = ctx;
  const base = await ctx.baseBranch();
  await findOrCreate(createContext(ctx, signal), {
    what: `branch ${branch}`,
    find: () => findBranchSha(ctx, branch),
    create: async () => {
      const baseSha = await findBranchSha(ctx, base);
      if (baseSha === undefined) {
        throw Object.assign(
          new Error(`Base branch "${base}" does not exist in ${ctx.repository}`),
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

export const readFile = async (
  ctx: RepositoryContext,
  branch: string,
  path: string,
): Promise<{ sha: string; text: string } | undefined> => {
  const { octokit, owner, repo } = ctx;
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
export const ensureFile = async (
  ctx: RepositoryContext,
  input: FileInput,
  signal?: AbortSignal,
): Promise<string | undefined> => {
  const { octokit, owner, repo, client, policy } = ctx;
  for (let attempt = 1; ; attempt += 1) {
    const current = await readFile(ctx, input.branch, input.path);
    if (current?.text === input.content) return findBranchSha(ctx, input.branch);
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
      return data.commit.sha ?? (await findBranchSha(ctx, input.branch));
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
      ctx.logger.info(
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
