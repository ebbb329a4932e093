#!/usr/bin/env node
import { isCogitaveError } from '../services/runtime/errors.js';
import { loadConfig } from '../services/runtime/config.js';
import { createLogger, defaultLogFormat } from '../services/runtime/logger.js';
import { attachToServingOwner } from './commands/serve/attach.js';

/**
 * `cogitave serve --stdio` as an MCP client starts it (the repository's .mcp.json). When
 * another `serve` owns the embedded data folder, the session is carried to it (see
 * commands/serve/attach.ts), which needs a handful of small modules; the whole CLI takes
 * about a second of CPU to load. So attaching is tried first, and the CLI is loaded only
 * when this process serves by itself. Extra arguments go to `serve` unchanged (no shortcut).
 */
const serveBySelf = async (): Promise<void> => {
  process.argv.splice(2, 0, 'serve', '--stdio');
  await import('./cogitave.js');
};

const attached = async (): Promise<boolean> => {
  let config;
  try {
    config = loadConfig();
  } catch {
    // The CLI says what is wrong with the settings, as it does for every command.
    return false;
  }
  // As `serve` makes its logger (commands/context.ts), without loading the CLI for it.
  const logger = createLogger(
    config.logLevel,
    'cogitave',
    config.logFormat ?? defaultLogFormat(process.stderr.isTTY),
  );
  return attachToServingOwner(config, logger);
};

if (process.argv.length > 2) {
  await serveBySelf();
} else {
  try {
    if (!(await attached())) await serveBySelf();
  } catch (error) {
    if (!isCogitaveError(error)) throw error;
    process.stderr.write(`error: ${error.message}\n`);
    // UNAVAILABLE (the owner stopped) is 69, as the CLI maps it.
    process.exitCode = error.code === 'UNAVAILABLE' ? 69 : 1;
  }
}
