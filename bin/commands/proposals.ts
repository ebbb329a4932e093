import { randomUUID } from 'node:crypto';
import { Command } from 'commander';
import { githubSettingsFromConfig } from '../../services/github/index.js';
import { listPendingProposals } from '../../services/github/local-approval.js';
import { requestIdOfProposal } from '../../services/github/markers.js';
import { foldRequestView } from '../../services/github/render.js';
import type { RequestCommandHandlers } from '../../services/requests/commands.js';
import { requestStreamId } from '../../services/requests/events.js';
import { createRequestCommandHandlers } from '../../services/requests/handlers.js';
import type { App } from '../app.js';
import { CogitaveError, InvalidArgument, NotFound } from '../../services/runtime/errors.js';
import { withApp } from './context.js';

/**
 * Local approval mode: with no GitHub configured, proposals stage as events and a maintainer
 * decides them here. Deliberately a CLI only: no MCP tool or HTTP route can approve, so an
 * agent that proposes can never approve its own work.
 */
const LOCAL_ONLY =
  'Local approval mode only (no GitHub configured). Never exposed over MCP: only an operator with access to this machine and its database can decide.';

const ensureLocalMode = (app: App): void => {
  const github = githubSettingsFromConfig(app.config);
  if (github) {
    throw new CogitaveError(
      'FAILED_PRECONDITION',
      `GitHub is configured (${github.repository}): proposals are approved by merging their pull request and rejected by closing it, not from the command line.`,
    );
  }
};

const requestOf = (proposalId: string): string => {
  const requestId = requestIdOfProposal(proposalId);
  if (requestId === undefined) {
    throw new InvalidArgument(
      `"${proposalId}" is not a proposal id; they look like req-2026-0001-p1 (see "cogitave proposals list")`,
    );
  }
  return requestId;
};

const decide = async (
  proposalId: string,
  as: string,
  run: (handlers: RequestCommandHandlers, requestId: string) => Promise<{ revision: bigint }>,
  verb: string,
): Promise<void> => {
  const requestId = requestOf(proposalId);
  await withApp(true, async (app) => {
    ensureLocalMode(app);
    const stream = await app.eventStore.readStream(requestStreamId(requestId));
    const proposal = foldRequestView(stream)?.proposals.get(proposalId);
    if (!proposal) {
      throw new NotFound(
        `No proposal ${proposalId} in request ${requestId}; "cogitave proposals list" shows the pending ones`,
      );
    }
    // The handlers treat deciding again as a no-op; say so instead of reporting a decision.
    if (proposal.status !== 'pending') {
      throw new CogitaveError(
        'FAILED_PRECONDITION',
        `Proposal ${proposalId} was already ${proposal.status}; nothing changed ("cogitave proposals list" shows the pending ones)`,
      );
    }
    const result = await run(
      createRequestCommandHandlers({ eventStore: app.eventStore }),
      requestId,
    );
    process.stdout.write(
      `${verb} ${proposalId} as ${as}: ${proposal.data.fromStage} → ${proposal.data.toStage} (request ${requestId} at revision ${result.revision})\n`,
    );
  });
};

const meta = (as: string) => ({
  commandId: randomUUID(),
  actor: `maintainer:${as}`,
  at: new Date().toISOString(),
});

const listCommand = new Command('list')
  .description(
    'Print the proposals waiting for a decision: request, proposal id, from → to, proposer, evidence.',
  )
  .option('--json', 'one JSON object per line')
  .action(async (flags: { json?: boolean }) => {
    await withApp(true, async ({ eventStore }) => {
      const pending = await listPendingProposals(eventStore);
      if (flags.json) {
        for (const proposal of pending) process.stdout.write(`${JSON.stringify(proposal)}\n`);
        return;
      }
      if (pending.length === 0) {
        process.stdout.write('no pending proposals\n');
        return;
      }
      for (const p of pending) {
        process.stdout.write(
          `${p.requestId}  ${p.proposalId}  ${p.fromStage} → ${p.toStage}  by ${p.proposedBy}  evidence: ${p.evidence}  "${p.title}"\n`,
        );
      }
    });
  });

const approveCommand = new Command('approve')
  .description(`Approve a proposal: the request advances to the proposed stage. ${LOCAL_ONLY}`)
  .argument('<proposalId>', 'e.g. req-2026-0001-p1')
  .requiredOption('--as <maintainer>', 'who decides (must not be the proposer)')
  .action(async (proposalId: string, flags: { as: string }) => {
    await decide(
      proposalId,
      flags.as,
      (handlers, requestId) =>
        handlers.approveProposal(
          { requestId, proposalId, decidedBy: flags.as, via: 'local', mergeCommitSha: null },
          meta(flags.as),
        ),
      'approved',
    );
  });

const rejectCommand = new Command('reject')
  .description(`Reject a proposal: the request stays where it is. ${LOCAL_ONLY}`)
  .argument('<proposalId>', 'e.g. req-2026-0001-p1')
  .requiredOption('--as <maintainer>', 'who decides')
  .requiredOption('--reason <text>', 'why, for the proposer')
  .action(async (proposalId: string, flags: { as: string; reason: string }) => {
    await decide(
      proposalId,
      flags.as,
      (handlers, requestId) =>
        handlers.rejectProposal(
          { requestId, proposalId, decidedBy: flags.as, via: 'local', reason: flags.reason },
          meta(flags.as),
        ),
      'rejected',
    );
  });

export const proposalsCommand = new Command('proposals')
  .description(`List, approve and reject stage proposals. ${LOCAL_ONLY}`)
  .addCommand(listCommand)
  .addCommand(approveCommand)
  .addCommand(rejectCommand);
