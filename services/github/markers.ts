/**
 * The names and hidden markers that tie GitHub objects to requests and proposals. They are
 * deterministic, so the reactor can look an object up before creating it (after a retry or a
 * crash) and the webhook receiver can resolve an object even before the reactor recorded it.
 */

/** Every label the reactor puts on issues it opens. */
export const BASE_LABEL = 'cogitave';
export const INTAKE_LABEL = 'cogitave:intake';

/**
 * One label per request, so looking up its intake issue is one `issues.listForRepo` page
 * (`labels` ANDed) instead of a scan of every intake issue: search lags and cannot be used.
 */
export const requestLabel = (requestId: string): string => `cogitave:${requestId}`;

export const requestMarker = (requestId: string): string =>
  `<!-- cogitave:request=${requestId} -->`;
export const proposalMarker = (proposalId: string): string =>
  `<!-- cogitave:proposal=${proposalId} -->`;

export const BRANCH_PREFIX = 'cogitave/';
export const proposalBranch = (proposalId: string): string => `${BRANCH_PREFIX}${proposalId}`;

export const requestFilePath = (requestId: string): string => `requests/${requestId}.md`;

const REQUEST_ID = /^req-\d{4}-\d+$/;
const PROPOSAL_ID = /^(req-\d{4}-\d+)-p\d+$/;

export const isRequestId = (value: string): boolean => REQUEST_ID.test(value);

/** `req-2026-0001-p2` → `req-2026-0001`; undefined for anything else. */
export const requestIdOfProposal = (proposalId: string): string | undefined =>
  PROPOSAL_ID.exec(proposalId)?.[1];

/** The proposal a branch was made for, or undefined when it is not one of ours. */
export const proposalIdOfBranch = (branch: string): string | undefined => {
  if (!branch.startsWith(BRANCH_PREFIX)) return undefined;
  const proposalId = branch.slice(BRANCH_PREFIX.length);
  return requestIdOfProposal(proposalId) === undefined ? undefined : proposalId;
};

/**
 * A branch the reactor opened to put a request file back (reconcile.ts):
 * `cogitave/restore-<proposalId>` after a merge that did not count,
 * `cogitave/restore-<requestId>-<commit12>` after a hand edit of the file, and `…-r<n>` for the
 * n-th restore of the same disagreement when an earlier one was closed or deleted unmerged.
 */
const RESTORE_BRANCH = /^cogitave\/restore-(req-\d{4}-\d+)-(p\d+|[0-9a-f]{12})(?:-r(\d+))?$/;

export interface RestoreBranch {
  readonly requestId: string;
  /** The proposal whose uncounted merge it restores; null for a hand edit of the file. */
  readonly proposalId: string | null;
  /** The branch without its `-r<n>` suffix: what every restore of one disagreement shares. */
  readonly first: string;
  /** 1 for the first restore, n for `-r<n>`. */
  readonly attempt: number;
}

export const restoreBranchOf = (branch: string): RestoreBranch | undefined => {
  const match = RESTORE_BRANCH.exec(branch);
  if (!match?.[1] || !match[2]) return undefined;
  return {
    requestId: match[1],
    proposalId: match[2].startsWith('p') ? `${match[1]}-${match[2]}` : null,
    first: `${BRANCH_PREFIX}restore-${match[1]}-${match[2]}`,
    attempt: match[3] === undefined ? 1 : Number(match[3]),
  };
};

/** The branch of the n-th restore of a disagreement (the first keeps its plain name). */
export const restoreAttemptBranch = (first: string, attempt: number): string =>
  attempt <= 1 ? first : `${first}-r${attempt}`;

const MARKER = /<!-- cogitave:(request|proposal)=([A-Za-z0-9-]+) -->/;

/** The first marker of a body, when it is of the expected kind. */
export const markerIn = (
  body: string | null | undefined,
  kind: 'request' | 'proposal',
): string | undefined => {
  const match = MARKER.exec(body ?? '');
  return match?.[1] === kind ? match[2] : undefined;
};

/**
 * User text goes into issue and file bodies verbatim except for HTML comment openers: a
 * problem statement must not be able to forge another request's marker.
 */
export const neutraliseMarkers = (text: string): string => text.replaceAll('<!--', '&lt;!--');
