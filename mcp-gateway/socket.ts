import type net from 'node:net';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import type { Database } from '../services/database/database.js';
import {
  listenOwnerMcpSocket,
  type EndConnection,
  type OwnerMcpSocket,
} from '../services/database/embedded/mcp-socket.js';
import type { Logger } from '../services/runtime/logger.js';
import type { McpGateway } from './server/factory.js';
import { LOCAL_CALLER } from './registry.js';

// How long a stopping owner waits for attached clients' connections to go.
const CLOSE_GRACE_MS = 2000;

/**
 * One MCP connection over a socket of the owner's MCP socket, served exactly as stdio is
 * (see stdio.ts): newline-delimited JSON-RPC, the opening message picks the protocol
 * revision, everything granted as actor `local` — whoever can reach the socket is the
 * folder's user, the same trust as a process that starts `serve --stdio` itself.
 */
const serveSocketConnection = (
  gateway: McpGateway,
  socket: net.Socket,
  logger: Logger,
): EndConnection => {
  const handle = serveStdio(
    (context) => gateway.createServer(LOCAL_CALLER, { era: context.era, follow: true }),
    {
      legacy: 'serve',
      // The socket is both the transport's stdin and stdout.
      transport: new StdioServerTransport(socket, socket),
      onerror: (error) => {
        logger.debug({ err: error }, 'MCP socket message refused or failed');
      },
    },
  );
  socket.on('error', (error) => {
    logger.debug({ err: error }, 'MCP socket connection failed');
  });
  // The client went (its end of the pipe closed): the transport has seen it; close the
  // pinned server too.
  socket.once('close', () => {
    void handle.close();
  });
  return async () => {
    await handle.close();
    socket.end();
  };
};

/**
 * Starts the MCP socket when this process owns an embedded data folder and serves MCP;
 * undefined otherwise (server Postgres: a stdio process runs its own gateway). It is an
 * addition to what `serve` serves, so a failure to listen is logged and `serve` goes on.
 */
export const serveMcpSocket = async (
  database: Database,
  gateway: McpGateway | undefined,
  logger: Logger,
): Promise<{ close(): Promise<void> } | undefined> => {
  if (!gateway || database.embedded?.role !== 'owner') return undefined;
  let socket: OwnerMcpSocket;
  try {
    socket = await listenOwnerMcpSocket({
      dataDir: database.location,
      directory: database.embedded.owner.socketDirectory,
      logger,
      serve: (connection) => serveSocketConnection(gateway, connection, logger),
    });
  } catch (error) {
    logger.warn(
      { err: error },
      'the MCP socket could not listen: serve --stdio on this folder will be refused',
    );
    return undefined;
  }
  logger.debug({ mcpSocket: socket.path }, 'MCP socket listening');
  return { close: () => socket.close(CLOSE_GRACE_MS) };
};
