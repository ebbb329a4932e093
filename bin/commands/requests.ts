import { Command } from 'commander';
import { LOCAL_ONLY } from './proposals.js';
import { withApp } from './context.js';

/** A maintainer's direct decisions on a request (no proposal): reject its intake, withdraw it. */
const decide = async (
  requestId: string,
  flags: { as: string; reason: string },
  decision: 'reject-intake' | 'withdraw',
): Promise<void> => {
  await withApp(true, async (app) => {
    const result = await app.governance.decideRequestLocally({
      requestId,
      decision,
      as: flags.as,
      reason: flags.reason,
    });
    const verb =
      decision === 'withdraw' ? `withdrew ${requestId}` : `rejected the intake of ${requestId}`;
    process.stdout.write(
      `${verb} as ${flags.as}: ${result.fromStage} → ${result.toStage} (request ${requestId} at revision ${result.revision})\n`,
    );
  });
};

const rejectIntakeCommand = new Command('reject-intake')
  .description(
    `Reject a request that is still a draft (stage proposed): it becomes rejected. ${LOCAL_ONLY}`,
  )
  .argument('<requestId>', 'e.g. req-2026-0001')
  .requiredOption('--as <maintainer>', 'who decides')
  .requiredOption('--reason <text>', 'why, for the requester')
  .action(async (requestId: string, flags: { as: string; reason: string }) => {
    await decide(requestId, flags, 'reject-intake');
  });

const withdrawCommand = new Command('withdraw')
  .description(
    `Withdraw an active request at any stage; a pending proposal is abandoned with it. ${LOCAL_ONLY}`,
  )
  .argument('<requestId>', 'e.g. req-2026-0001')
  .requiredOption('--as <maintainer>', 'who decides')
  .requiredOption('--reason <text>', 'why, for the requester')
  .action(async (requestId: string, flags: { as: string; reason: string }) => {
    await decide(requestId, flags, 'withdraw');
  });

export const requestsCommand = new Command('requests')
  .description(`Decide on a request directly: reject its intake, withdraw it. ${LOCAL_ONLY}`)
  .addCommand(rejectIntakeCommand)
  .addCommand(withdrawCommand);
