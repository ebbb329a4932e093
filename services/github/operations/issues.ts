import { CREATE_ONCE, findOrCreate, isAlreadyExists } from '../client.js';
import { BASE_LABEL, INTAKE_LABEL, markerIn, requestLabel } from '../markers.js';
import { createContext, type RepositoryContext } from './repo.js';

/** Issues, labels and comments: intake issues found by label and marker, comments by marker. */
export interface IssueRef {
  readonly number: number;
  readonly url: string;
}

const LABEL_COLORS: Record<string, string> = {
  [BASE_LABEL]: '5319e7',
  [INTAKE_LABEL]: '0e8a16',
};

/** Label names are unique per repository, so a create can be retried freely: 422 = exists. */
const ensureLabel = async (
  ctx: RepositoryContext,
  ensured: Set<string>,
  name: string,
): Promise<void> => {
  if (ensured.has(name)) return;
  try {
    await ctx.octokit.rest.issues.createLabel({
      owner: ctx.owner,
      repo: ctx.repo,
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
  ensured.add(name);
};

export const findIntakeIssue = async (
  ctx: RepositoryContext,
  requestId: string,
): Promise<IssueRef | undefined> => {
  const { octokit, owner, repo } = ctx;
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

/** The intake issue of a request, opened (with its labels) unless it exists. */
export const ensureIntakeIssue = async (
  ctx: RepositoryContext,
  ensuredLabels: Set<string>,
  { requestId, title, body }: { requestId: string; title: string; body: string },
  signal?: AbortSignal,
): Promise<IssueRef & { created: boolean }> => {
  const labels = [BASE_LABEL, INTAKE_LABEL, requestLabel(requestId)];
  // Labels first: the look-up filters by them, and an issue must never miss its label.
  for (const label of labels) await ensureLabel(ctx, ensuredLabels, label);
  const { value, created } = await findOrCreate(createContext(ctx, signal), {
    what: `intake issue of ${requestId}`,
    find: () => findIntakeIssue(ctx, requestId),
    create: async () => {
      const { data } = await ctx.octokit.rest.issues.create({
        owner: ctx.owner,
        repo: ctx.repo,
        title,
        body,
        labels,
        ...CREATE_ONCE,
      });
      return { number: data.number, url: data.html_url };
    },
  });
  return { ...value, created };
};

/** Comments on an issue or pull request unless a comment carrying `marker` is there. */
export const ensureComment = async (
  ctx: RepositoryContext,
  { number, marker, body }: { number: number; marker: string; body: string },
): Promise<void> => {
  const { octokit, owner, repo } = ctx;
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
};

/**
 * Closes an open issue as not planned, after a comment carrying `marker` (kept once); an
 * issue closed already is left as it is. Whether it was open.
 */
export const closeIssueNotPlanned = async (
  ctx: RepositoryContext,
  input: { number: number; marker: string; body: string },
): Promise<boolean> => {
  const { octokit, owner, repo } = ctx;
  const { data } = await octokit.rest.issues.get({ owner, repo, issue_number: input.number });
  if (data.state === 'closed') return false;
  await ensureComment(ctx, input);
  await octokit.rest.issues.update({
    owner,
    repo,
    issue_number: input.number,
    state: 'closed',
    state_reason: 'not_planned',
  });
  return true;
};
