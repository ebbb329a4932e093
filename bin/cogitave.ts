#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { readPackageInfo } from './package-info.js';
import { isCogitaveError, type ErrorCode } from '../services/runtime/errors.js';
import { approvalModeCommand } from './commands/approval-mode.js';
import { configCommand } from './commands/config.js';
import { digestCommand } from './commands/digest.js';
import { eventsCommand } from './commands/events.js';
import { ingestCommand } from './commands/ingest.js';
import { migrateCommand } from './commands/migrate.js';
import { proposalsCommand } from './commands/proposals.js';
import { replayCommand } from './commands/replay.js';
import { requestsCommand } from './commands/requests.js';
import { serveCommand } from './commands/serve.js';
import { sourcesCommand } from './commands/sources.js';
import { verifyCommand } from './commands/verify.js';

// sysexits-style codes, so scripts can tell a usage error from an outage.
const EXIT_CODES: Partial<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: 2,
  FAILED_PRECONDITION: 65,
  WRONG_EXPECTED_VERSION: 75,
  PERMISSION_DENIED: 77,
  NOT_FOUND: 66,
  UNAVAILABLE: 69,
  IN_USE: 73,
  CONFIG_INVALID: 78,
};

const { version } = readPackageInfo();

const program = new Command('cogitave')
  .description('Cogitave Core: an event-sourced request-lifecycle platform served over MCP.')
  .version(version)
  .showHelpAfterError('(add --help for usage)')
  .showSuggestionAfterError()
  .exitOverride()
  .addCommand(serveCommand)
  .addCommand(migrateCommand)
  .addCommand(eventsCommand)
  .addCommand(verifyCommand)
  .addCommand(digestCommand)
  .addCommand(replayCommand)
  .addCommand(ingestCommand)
  .addCommand(sourcesCommand)
  .addCommand(proposalsCommand)
  .addCommand(approvalModeCommand)
  .addCommand(requestsCommand)
  .addCommand(configCommand);

for (const command of program.commands) {
  command.exitOverride();
  for (const sub of command.commands) sub.exitOverride();
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    // commander has already printed the message (or the help); usage errors exit 2.
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (isCogitaveError(error)) {
    // One line per problem, each naming what to fix; no stack: this is not a bug.
    for (const line of error.message.split('\n')) process.stderr.write(`error: ${line}\n`);
    process.exitCode = EXIT_CODES[error.code] ?? 1;
  } else {
    process.stderr.write(
      `error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  }
}
