import type { RepositoryDivergedData } from '../../governance/divergence.js';
import type { ProposalRecord } from '../../requests/fold.js';
import type { IntakeDecisionInput, ProposalDecisionInput } from '../../requests/commands.js';
import {
  INTAKE_LABEL,
  isRequestId,
  markerIn,
  proposalIdOfBranch,
  requestIdOfProposal,
  restoreBranchOf,
} from '../markers.js';
import {
  deleteSchema,
  issueClosedSchema,
  pullRequestClosedSchema,
  pushSchema,
  type PullRequestPayload,
  type PushPayload,
} from './payloads.js';

/**
 * What a verified delivery tells the product, without I/O: a maintainer's decision to apply
 * (a proposal's pull request merged, closed or reopened; an intake issue closed as not
 * planned), facts about the repository to record for the reactor to reconcile
 * (`RepositoryDiverged`, see divergence.ts), or nothing (ignored, with the reason). A push onto
 * a proposal branch is the one delivery whose meaning depends on the log (the proposal's state
 * and the commit the reactor made): it is read in two steps, `readDelivery` then
 * `factsOfProposalBranchPush` with the proposal the log holds.
 */
export type Decision =
  | {
      readonly command: 'approveProposal';
      readonly input: ProposalDecisionInput;
      readonly actor: string;
      readonly pullNumber: number;
    }
  | {
      readonly command: 'rejectProposal';
      readonly input: ProposalDecisionInput;
      readonly actor: string;
    }
  | {
      readonly command: 'recordReopen';
      readonly input: { readonly requestId: string; readonly proposalId: string };
      readonly actor: string;
      readonly pullNumber: number;
    }
  | {
      readonly command: 'rejectIntake';
      readonly input: IntakeDecisionInput;
      readonly actor: string;
    };

/** A push to a proposal branch that may say something, once its proposal is looked up. */
export interface ProposalBranchPush {
  readonly push: PushPayload;
  readonly branch: string;
  readonly requestId: string;
  readonly proposalId: string;
}

export type Ignored = { readonly kind: 'ignored'; readonly reason: string };
export type Diverged = {
  readonly kind: 'diverged';
  readonly facts: readonly RepositoryDivergedData[];
};

export type DeliveryFacts =
  | Ignored
  | Diverged
  | { readonly kind: 'decision'; readonly decision: Decision }
  | { readonly kind: 'proposal-branch-push'; readonly push: ProposalBranchPush };

/** The deployment's repository, and the branch proposals are merged into. */
export interface DeliveryScope {
  /** owner/name: deliveries of other repositories are ignored. */
  readonly repository: string;
  /** Unset: the repository's default branch, as the payload states it. */
  readonly baseBranch?: string | undefined;
}

const REQUEST_FILE = /^requests\/([A-Za-z0-9-]+)\.md$/;
const HEADS = 'refs/heads/';

const ignored = (reason: string): Ignored => ({ kind: 'ignored', reason });
const diverged = (facts: readonly RepositoryDivergedData[]): Diverged => ({
  kind: 'diverged',
  facts,
});
const decided = (decision: Decision): DeliveryFacts => ({ kind: 'decision', decision });

const sameRepository = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

const otherRepository = (fullName: string, scope: DeliveryScope): Ignored | undefined =>
  sameRepository(fullName, scope.repository)
    ? undefined
    : ignored(`repository ${fullName} is not ${scope.repository}`);

/** A restore pull request closed unmerged, or its branch deleted: the file stays wrong. */
const abandonedRestore = (
  branch: string,
  by: string,
  pullNumber: number | null,
): RepositoryDivergedData | undefined => {
  const restore = restoreBranchOf(branch);
  if (!restore) return undefined;
  return {
    requestId: restore.requestId,
    proposalId: restore.proposalId,
    kind: 'restore_abandoned',
    pullNumber,
    by,
    mergeCommitSha: null,
    branch,
    reason:
      pullNumber === null
        ? `restore branch ${branch} deleted by ${by}`
        : `restore pull request #${pullNumber} (${branch}) closed without merging by ${by}`,
  };
};

/** A restore pull request (reconcile.ts) closed: abandoned unless merged. */
const readRestorePullRequest = (
  parsed: PullRequestPayload,
  scope: DeliveryScope,
): DeliveryFacts => {
  const { repository, pull_request: pull, sender, action } = parsed;
  const foreign = otherRepository(repository.full_name, scope);
  if (foreign) return foreign;
  if (!pull.head.repo || !sameRepository(pull.head.repo.full_name, scope.repository)) {
    return ignored('the head branch lives in another repository (a fork)');
  }
  if (action !== 'closed') return ignored(`restore pull request #${pull.number} ${action}`);
  if (pull.merged === true) {
    return ignored(`restore pull request #${pull.number} merged: the request file is back`);
  }
  const fact = abandonedRestore(pull.head.ref, sender.login, pull.number);
  return fact ? diverged([fact]) : ignored(`branch ${pull.head.ref} is not a restore branch`);
};

/**
 * A proposal's pull request (`cogitave/<proposalId>`) into the base branch: merged → approve
 * (by `merged_by`, with the merge commit), closed unmerged → reject, reopened → recorded.
 * Resolved by branch name, so a merge that arrives before the reactor recorded the pull request
 * still applies.
 */
const readProposalPullRequest = (
  parsed: PullRequestPayload,
  scope: DeliveryScope,
): DeliveryFacts => {
  const { repository, pull_request: pull, sender } = parsed;
  const foreign = otherRepository(repository.full_name, scope);
  if (foreign) return foreign;
  const proposalId = proposalIdOfBranch(pull.head.ref);
  const requestId = proposalId === undefined ? undefined : requestIdOfProposal(proposalId);
  if (proposalId === undefined || requestId === undefined) {
    return ignored(`branch ${pull.head.ref} is not a proposal branch`);
  }
  if (!pull.head.repo || !sameRepository(pull.head.repo.full_name, scope.repository)) {
    return ignored('the head branch lives in another repository (a fork)');
  }
  const base = scope.baseBranch ?? repository.default_branch;
  if (base !== undefined && pull.base.ref !== base) {
    return ignored(`pull request #${pull.number} targets ${pull.base.ref}, not ${base}`);
  }
  if (parsed.action === 'reopened') {
    return decided({
      command: 'recordReopen',
      actor: sender.login,
      pullNumber: pull.number,
      input: { requestId, proposalId },
    });
  }
  if (pull.merged === true) {
    const by = pull.merged_by?.login ?? sender.login;
    return decided({
      command: 'approveProposal',
      actor: by,
      pullNumber: pull.number,
      input: {
        requestId,
        proposalId,
        decidedBy: by,
        via: 'github',
        mergeCommitSha: pull.merge_commit_sha ?? null,
        reason: `pull request #${pull.number} merged`,
      },
    });
  }
  return decided({
    command: 'rejectProposal',
    actor: sender.login,
    input: {
      requestId,
      proposalId,
      decidedBy: sender.login,
      via: 'github',
      reason: `pull request #${pull.number} closed without merging`,
    },
  });
};

const readPullRequest = (payload: unknown, scope: DeliveryScope): DeliveryFacts => {
  const parsed = pullRequestClosedSchema.safeParse(payload);
  if (!parsed.success) return ignored('not a pull_request.closed or .reopened delivery');
  return restoreBranchOf(parsed.data.pull_request.head.ref) === undefined
    ? readProposalPullRequest(parsed.data, scope)
    : readRestorePullRequest(parsed.data, scope);
};

/** An intake issue (label and marker) closed as not planned → `rejectIntake`. */
const readIssueClosed = (payload: unknown, scope: DeliveryScope): DeliveryFacts => {
  const parsed = issueClosedSchema.safeParse(payload);
  if (!parsed.success) return ignored('not an issues.closed delivery');
  const { repository, issue, sender } = parsed.data;
  const foreign = otherRepository(repository.full_name, scope);
  if (foreign) return foreign;
  const requestId = markerIn(issue.body, 'request');
  const labelled = issue.labels?.some((label) => label.name === INTAKE_LABEL) ?? false;
  if (requestId === undefined || !labelled) {
    return ignored(`issue #${issue.number} is not an intake issue`);
  }
  if (issue.state_reason !== 'not_planned') {
    return ignored(
      `issue #${issue.number} closed as ${issue.state_reason ?? 'completed'}, not as not planned`,
    );
  }
  return decided({
    command: 'rejectIntake',
    actor: sender.login,
    input: {
      requestId,
      decidedBy: sender.login,
      via: 'github',
      reason: `issue #${issue.number} closed as not planned`,
    },
  });
};

/** A deleted proposal branch (`branch_deleted`) or restore branch (`restore_abandoned`). */
const readDelete = (payload: unknown, scope: DeliveryScope): DeliveryFacts => {
  const parsed = deleteSchema.safeParse(payload);
  if (!parsed.success) return ignored('not a delete delivery');
  const { ref, ref_type: refType, repository, sender } = parsed.data;
  const foreign = otherRepository(repository.full_name, scope);
  if (foreign) return foreign;
  const restore = refType === 'branch' ? abandonedRestore(ref, sender.login, null) : undefined;
  if (restore) return diverged([restore]);
  const proposalId = refType === 'branch' ? proposalIdOfBranch(ref) : undefined;
  const requestId = proposalId === undefined ? undefined : requestIdOfProposal(proposalId);
  if (proposalId === undefined || requestId === undefined) {
    return ignored(`${refType} ${ref} is not a proposal branch`);
  }
  return diverged([
    {
      requestId,
      proposalId,
      kind: 'branch_deleted',
      pullNumber: null,
      by: sender.login,
      mergeCommitSha: null,
      reason: `branch ${ref} deleted by ${sender.login}`,
    },
  ]);
};

/** The request ids whose file `requests/<id>.md` a push's commits add, modify or remove. */
const changedRequestFiles = (push: PushPayload): readonly string[] => {
  const requestIds = new Set<string>();
  for (const commit of push.commits ?? []) {
    for (const path of [
      ...(commit.added ?? []),
      ...(commit.modified ?? []),
      ...(commit.removed ?? []),
    ]) {
      const requestId = REQUEST_FILE.exec(path)?.[1];
      if (requestId !== undefined && isRequestId(requestId)) requestIds.add(requestId);
    }
  }
  return [...requestIds];
};

/**
 * A push to the base branch changing request files (`file_changed`, per request), or to a
 * proposal branch (decided with the proposal, `factsOfProposalBranchPush`).
 */
const readPush = (payload: unknown, scope: DeliveryScope): DeliveryFacts => {
  const parsed = pushSchema.safeParse(payload);
  if (!parsed.success) return ignored('not a push delivery');
  const push = parsed.data;
  const { ref, repository, sender, after } = push;
  const foreign = otherRepository(repository.full_name, scope);
  if (foreign) return foreign;
  const proposalId = ref.startsWith(HEADS)
    ? proposalIdOfBranch(ref.slice(HEADS.length))
    : undefined;
  const proposalRequestId = proposalId === undefined ? undefined : requestIdOfProposal(proposalId);
  if (proposalId !== undefined && proposalRequestId !== undefined) {
    const branch = ref.slice(HEADS.length);
    if (push.deleted === true) return ignored(`${branch} deleted (the delete delivery decides)`);
    if (push.created === true && (push.commits ?? []).length === 0) {
      return ignored(`${branch} created at an existing commit: nothing pushed onto it`);
    }
    return {
      kind: 'proposal-branch-push',
      push: { push, branch, proposalId, requestId: proposalRequestId },
    };
  }
  const base = scope.baseBranch ?? repository.default_branch;
  if (base === undefined || ref !== `${HEADS}${base}` || push.deleted === true) {
    return ignored(`a push to ${ref}, not to the base branch`);
  }
  const requestIds = changedRequestFiles(push);
  if (requestIds.length === 0) return ignored('the push changes no request file');
  return diverged(
    requestIds.map((requestId) => ({
      requestId,
      proposalId: null,
      kind: 'file_changed' as const,
      pullNumber: null,
      by: sender.login,
      mergeCommitSha: after,
      reason: `a push by ${sender.login} (${after}) changed requests/${requestId}.md`,
    })),
  );
};

/** A verified delivery (`X-GitHub-Event` and its JSON payload) as what it tells. */
export const readDelivery = (
  name: string,
  payload: unknown,
  scope: DeliveryScope,
): DeliveryFacts => {
  switch (name) {
    case 'pull_request':
      return readPullRequest(payload, scope);
    case 'issues':
      return readIssueClosed(payload, scope);
    case 'delete':
      return readDelete(payload, scope);
    case 'push':
      return readPush(payload, scope);
    default:
      return ignored(`${name} deliveries are not used`);
  }
};

/**
 * A push to a proposal branch, given the proposal as the log holds it (undefined: not in the
 * log). Its head differs from the commit the reactor made (and recorded) → someone else's
 * commits ride on the proposal. The reactor's own commit and branches of proposals already
 * decided tell nothing and are ignored.
 */
export const factsOfProposalBranchPush = (
  { push, branch, requestId, proposalId }: ProposalBranchPush,
  proposal: ProposalRecord | undefined,
): Ignored | Diverged => {
  if (!proposal) return ignored(`proposal ${proposalId} is not in the log`);
  if (proposal.outcome !== 'pending') {
    return ignored(`proposal ${proposalId} is ${proposal.outcome} already`);
  }
  if (proposal.pullRequest?.headSha === push.after) {
    return ignored(`${push.after} is the commit the reactor made on ${branch}`);
  }
  const pusher = push.pusher?.name;
  return diverged([
    {
      requestId,
      proposalId,
      kind: 'proposal_branch_pushed',
      pullNumber: proposal.pullRequest?.pullNumber ?? null,
      by: push.sender.login,
      mergeCommitSha: push.after,
      branch,
      reason: `a ${push.forced === true ? 'force ' : ''}push by ${push.sender.login}${pusher !== undefined && pusher !== push.sender.login ? ` (as ${pusher})` : ''} moved ${branch} to ${push.after}, which is not the commit the reactor made for ${proposalId}`,
    },
  ]);
};
