import type { Principal, PrincipalDirectory } from './principals.js';

/**
 * Who may approve a proposal: the one rule every approval path (GitHub merge, local CLI,
 * console) goes through, because the Request decider applies it to every approval.
 *
 * - Four eyes: the approver's principal is not the proposer's principal.
 * - With maintainers configured, the approver is one of them.
 */
export type ApprovalJudgement =
  | { readonly counts: true; readonly approver: Principal; readonly proposer: Principal }
  | {
      readonly counts: false;
      readonly code: 'own_proposal' | 'not_maintainer';
      readonly approver: Principal;
      readonly proposer: Principal;
      /** A sentence for the event, the PR comment and the CLI. */
      readonly reason: string;
    };

export const judgeApproval = (
  directory: PrincipalDirectory,
  input: { readonly proposedBy: string; readonly approvedBy: string; readonly proposalId: string },
): ApprovalJudgement => {
  const approver = directory.principalOf(input.approvedBy);
  const proposer = directory.principalOf(input.proposedBy);
  if (approver.id === proposer.id) {
    return {
      counts: false,
      code: 'own_proposal',
      approver,
      proposer,
      reason: `${input.approvedBy} is principal ${approver.id}, whose own identity ${input.proposedBy} proposed ${input.proposalId}: another maintainer must approve it (four eyes).`,
    };
  }
  if (!approver.maintainer) {
    return {
      counts: false,
      code: 'not_maintainer',
      approver,
      proposer,
      reason: `${input.approvedBy} (principal ${approver.id}) is not a maintainer; maintainers are ${directory.maintainers.join(', ')}.`,
    };
  }
  return { counts: true, approver, proposer };
};
