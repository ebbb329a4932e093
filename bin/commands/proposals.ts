import { Command } from 'commander';
import { listPendingProposals } from '../../services/github/local-approval.js';
import { withApp } from './context.js';

/**
 * Local approval mode: proposals stage as events and a maintainer decides them here, through
 * the governance service (the deployment's recorded mode, principals, four eyes). No MCP tool
 * can approve, so an agent that proposes can never approve its own work.
 */
export const LOCAL_ONLY =
  "Local approval mode only: refused when the deployment's recorded approval mode is github, whatever this shell's environment says. Never exposed over MCP: only an operator with access to this machine and its database can decide.";

const decide = async (
  proposalId: string,
  flags: { as: string; reason?: string },
  decision: 'approve' | 'reject',
): Promise<void> => {
  await withApp(true, async (app) => {
    const result = await app.governance.decideLocally({
      proposalId,
      decision,
      as: flags.as,
      reason: flags.reason,
    });
    const { fromStage, toStage } = result.proposal;
    process.stdout.write(
      `${decision === 'approve' ? 'approved' : 'rejected'} ${proposalId} as ${flags.as}: ${fromStage} → ${toStage} (request ${result.requestId} at revision ${result.revision})\n`,
    );
  });
};

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
  .requiredOption(
    '--as <maintainer>',
    "who decides: a principal or GitHub login (not the proposer's principal; a maintainer when COGITAVE_PRINCIPALS lists maintainers)",
  )
  .action(async (proposalId: string, flags: { as: string }) => {
    await decide(proposalId, flags, 'approve');
  });

const rejectCommand = new Command('reject')
  .description(`Reject a proposal: the request stays where it is. ${LOCAL_ONLY}`)
  .argument('<proposalId>', 'e.g. req-2026-0001-p1')
  .requiredOption('--as <maintainer>', 'who decides')
  .requiredOption('--reason <text>', 'why, for the proposer')
  .action(async (proposalId: string, flags: { as: string; reason: string }) => {
    await decide(proposalId, flags, 'reject');
  });

export const proposalsCommand = new Command('proposals')
  .description(`List, approve and reject stage proposals. ${LOCAL_ONLY}`)
  .addCommand(listCommand)
  .addCommand(approveCommand)
  .addCommand(rejectCommand);
