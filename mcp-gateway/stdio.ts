import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { Logger } from '../services/runtime/logger.js';
import type { McpGateway } from './server/factory.js';
import { LOCAL_CALLER } from './registry.js';

export interface RunningStdio {
  /** Resolves when the client closes stdin (or `close` is called). */
  readonly ended: Promise<void>;
  close(): Promise<void>;
}

/**
 * MCP over stdio for a local client: both protocol revisions (the opening message picks one
 * per connection), everything granted as actor `local`. stdout carries only MCP messages; logs
 * go to stderr.
 */
export const startStdio = (gateway: McpGateway, logger: Logger): RunningStdio => {
  let finish: () => void = () => undefined;
  const ended = new Promise<void>((resolve) => {
    finish = resolve;
  });
  const handle = serveStdio(
    (context) => gateway.createServer(LOCAL_CALLER, { era: context.era, follow: true }),
    {
      legacy: 'serve',
      onerror: (error) => {
        logger.debug({ err: error }, 'stdio MCP message refused or failed');
      },
    },
  );
  process.stdin.once('end', finish);
  process.stdin.once('close', finish);
  return {
    ended,
    close: async () => {
      finish();
      await handle.close();
    },
  };
};
