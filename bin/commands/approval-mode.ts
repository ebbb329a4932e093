import { Argument, Command, Option } from 'commander';
import { APPROVAL_MODES, type ApprovalMode } from '../../services/governance/approval-mode.js';
import { withApp } from './context.js';

/**
 * The deployment's approval mode, as its log records it. `show` prints it; `set` changes it,
 * which is itself an event naming the maintainer. A process's own environment never changes it.
 */
const showCommand = new Command('show')
  .description("Print the deployment's approval mode as its log records it.")
  .option('--json', 'one JSON object')
  .action(async (flags: { json?: boolean }) => {
    await withApp(true, async (app) => {
      const mode = await app.governance.recordedMode();
      if (flags.json) {
        process.stdout.write(
          `${JSON.stringify(mode ? { ...mode, revision: mode.revision.toString() } : null)}\n`,
        );
        return;
      }
      process.stdout.write(
        mode === undefined
          ? 'no approval mode recorded yet: the first serve records the one it is configured for\n'
          : mode.source === 'inferred'
            ? 'github (inferred: the log records GitHub issues and pull requests; the next serve records it)\n'
            : `${mode.mode}${mode.repository ? ` (${mode.repository})` : ''}, set by ${mode.setBy} at ${mode.at}\n`,
      );
    });
  });

const setCommand = new Command('set')
  .description(
    "Change the deployment's approval mode (recorded as an event). Restart serve with the matching configuration afterwards: it refuses to run in a mode the log does not record.",
  )
  .addArgument(new Argument('<mode>', 'github or local').choices(APPROVAL_MODES))
  .requiredOption(
    '--as <maintainer>',
    'the maintainer making the change (a maintainer in COGITAVE_PRINCIPALS when it lists any)',
  )
  .addOption(new Option('--reason <text>', 'why, for the record'))
  .action(async (mode: ApprovalMode, flags: { as: string; reason?: string }) => {
    await withApp(true, async (app) => {
      const after = await app.governance.setMode({ mode, as: flags.as, reason: flags.reason });
      process.stdout.write(
        `approval mode is now ${after.mode}, set by ${after.setBy} at ${after.at}\n`,
      );
    });
  });

export const approvalModeCommand = new Command('approval-mode')
  .description(
    'Show or change how proposals are approved in this deployment: github (merging the pull request) or local (cogitave proposals approve).',
  )
  .addCommand(showCommand)
  .addCommand(setCommand);
