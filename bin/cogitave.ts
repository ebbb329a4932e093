#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { readPackageInfo } from './package-info.js';
import { isCogitaveError, type ErrorCode } from '../services/runtime/errors.js';

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

/**
 * Each command's module, loaded on demand: a command loads only its own (`serve` pulls in the
 * gateway, the console and GitHub), so a one-shot command starts in a fraction of the time.
 * Help, a misspelt command and `help <command>` load them all. In the order help lists them.
 */
const COMMANDS: Readonly<Record<string, () => Promise<Command>>> = {
  serve: async () => (await import('./commands/serve.js')).serveCommand,
  migrate: async () => (await import('./commands/migrate.js')).migrateCommand,
  events: async () => (await import('./commands/events.js')).eventsCommand,
  verify: async () => (await import('./commands/verify.js')).verifyCommand,
  digest: async () => (await import('./commands/digest.js')).digestCommand,
  replay: async () => (await import('./commands/replay.js')).replayCommand,
  ingest: async () => (await import('./commands/ingest.js')).ingestCommand,
  sources: async () => (await import('./commands/sources.js')).sourcesCommand,
  proposals: async () => (await import('./commands/proposals.js')).proposalsCommand,
  'approval-mode': async () => (await import('./commands/approval-mode.js')).approvalModeCommand,
  requests: async () => (await import('./commands/requests.js')).requestsCommand,
  config: async () => (await import('./commands/config.js')).configCommand,
};

// The root takes no option with a value, so the first word that is not an option names it.
const requested = process.argv.slice(2).find((arg) => !arg.startsWith('-'));
const load = requested === undefined ? undefined : COMMANDS[requested];
const commands = await Promise.all(load ? [load()] : Object.values(COMMANDS).map((l) => l()));

const { version } = readPackageInfo();

const program = new Command('cogitave')
  .description('Cogitave Core: an event-sourced request-lifecycle platform served over MCP.')
  .version(version)
  .showHelpAfterError('(add --help for usage)')
  .showSuggestionAfterError()
  .exitOverride();
for (const command of commands) program.addCommand(command);

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
