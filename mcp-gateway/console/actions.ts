import { decideAccess, accessDenied } from '../../services/access/grants.js';
import { CogitaveError, InvalidArgument } from '../../services/runtime/errors.js';
import type { GatewayServices } from '../services.js';
import type { ToolReader } from './reads.js';
import type { GetRequestResult } from './pages/requests.js';
import type { ConsoleIdentity } from './session.js';

/**
 * A maintainer's decisions from the console, in local approval mode: the same commands (and
 * so the same events) as `cogitave proposals approve|reject` and `cogitave requests
 * reject-intake|withdraw`, with the maintainer's identity from their login. Every decision
 * goes through the governance service like the CLI's: the deployment's recorded approval
 * mode, principals and four eyes are its, not ours. In GitHub mode nothing here runs:
 * approval is a merge.
 */
export type ApprovalMode =
  { readonly kind: 'local' } | { readonly kind: 'github'; readonly repository: string };

export type Decision =
  | { readonly kind: 'approve'; readonly proposalId: string }
  | { readonly kind: 'reject'; readonly proposalId: string; readonly reason: string }
  | { readonly kind: 'reject-intake'; readonly reason: string }
  | { readonly kind: 'withdraw'; readonly reason: string };

export interface DecisionDeps {
  readonly services: GatewayServices;
  readonly read: ToolReader;
  readonly approval: ApprovalMode;
}

/** How long the answer waits for the read model to show the decision (read-your-writes). */
const SHOW_WAIT_MS = 3000;

const reasonOf = (reason: string): string => {
  const text = reason.trim();
  if (text === '' || text.length > 2000)
    throw new InvalidArgument('A reason of 1 to 2,000 characters is needed, for the proposer.');
  return text;
};

export const decide = async (
  deps: DecisionDeps,
  identity: ConsoleIdentity,
  requestId: string,
  decision: Decision,
  signal: AbortSignal,
): Promise<void> => {
  const access = decideAccess(identity.caller.grants, 'decide');
  if (!access.allowed) throw accessDenied(access, 'Deciding in the console', identity.actor);
  if (deps.approval.kind === 'github') {
    throw new CogitaveError(
      'FAILED_PRECONDITION',
      `GitHub is configured (${deps.approval.repository}): a proposal is approved by merging its pull request and rejected by closing it, not in the console.`,
    );
  }
  // Read as the maintainer: a request outside their grant is absent here too.
  const view = (await deps.read(
    identity.caller,
    'get_request',
    { request_id: requestId },
    signal,
  )) as unknown as GetRequestResult;
  let revision: bigint;
  if (decision.kind === 'reject-intake' || decision.kind === 'withdraw') {
    // Governance decides: the deployment's recorded mode and its maintainers.
    revision = (
      await deps.services.governance.decideRequestLocally({
        requestId: view.request.requestId,
        decision: decision.kind,
        as: identity.decider,
        actor: identity.actor,
        reason: reasonOf(decision.reason),
      })
    ).revision;
  } else {
    const pending = view.request.pendingProposal;
    // The handlers treat deciding again as a no-op; a second click is told so instead.
    if (pending?.proposalId !== decision.proposalId) {
      throw new CogitaveError(
        'FAILED_PRECONDITION',
        `Proposal ${decision.proposalId} is not waiting for a decision on ${requestId} (it was decided already, or never made); nothing changed.`,
      );
    }
    // Governance decides: the deployment's recorded mode, principals and four eyes.
    revision = (
      await deps.services.governance.decideLocally({
        proposalId: decision.proposalId,
        decision: decision.kind,
        as: identity.decider,
        actor: identity.actor,
        reason: decision.kind === 'reject' ? reasonOf(decision.reason) : undefined,
      })
    ).revision;
  }
  await deps.services.requestsRead.waitFor(requestId, revision, SHOW_WAIT_MS);
};
