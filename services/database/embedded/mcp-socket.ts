import { rmSync } from 'node:fs';
import type net from 'node:net';
import { join } from 'node:path';
import type { Logger } from '../../runtime/logger.js';
import { listenPrivately } from './channel.js';
import { publishMcpSocket } from './owner-record.js';

/**
 * The owner's MCP socket: a second Unix socket beside the channel's (same private 0700
 * folder, 0600), on which the owning `serve` speaks MCP exactly as on stdio. A
 * `cogitave serve --stdio` started while another `serve` owns the folder cannot open the
 * database itself (one owner only), so it pipes its stdin/stdout to this socket instead and
 * the owner's gateway serves it. As for the channel, the socket's permissions are the
 * authentication: only the folder's user can reach it.
 *
 * This module knows sockets and the owner record, not MCP: the caller serves each
 * connection (see mcp-gateway/socket.ts).
 */
export interface OwnerMcpSocket {
  readonly path: string;
  connections(): number;
  /**
   * Unpublishes the socket, stops accepting, ends every open connection through its own
   * `end` (so an MCP session is closed, not cut) and waits up to `graceMs` for them to go.
   */
  close(graceMs: number): Promise<void>;
}

/** Ends one served connection cleanly. */
export type EndConnection = () => Promise<void>;

export const MCP_SOCKET_NAME = 'mcp.sock';

/**
 * The socket goes where the channel's does (socketDirectoryFor: the folder's private
 * directory, or a private temporary one when that path is too long); its name is shorter
 * than the channel's, so it fits wherever that one does.
 */
export const mcpSocketPathIn = (directory: string): string => join(directory, MCP_SOCKET_NAME);

export interface OwnerMcpSocketOptions {
  readonly dataDir: string;
  /** The channel's socket folder, from the owner record. */
  readonly directory: string;
  readonly logger: Logger;
  /** Serves one connection; returns how to end it when the owner stops. */
  readonly serve: (socket: net.Socket) => EndConnection;
}

export const listenOwnerMcpSocket = async (
  options: OwnerMcpSocketOptions,
): Promise<OwnerMcpSocket> => {
  const { dataDir, logger } = options;
  const path = mcpSocketPathIn(options.directory);
  const open = new Map<net.Socket, EndConnection>();
  let closing = false;
  const server = await listenPrivately(
    path,
    (socket) => {
      if (closing) {
        socket.destroy();
        return;
      }
      open.set(socket, options.serve(socket));
      socket.once('close', () => open.delete(socket));
    },
    logger,
    'MCP socket',
  );
  // Published only once it listens: a bridge that reads the record finds a socket to reach.
  publishMcpSocket(dataDir, path);
  return {
    path,
    connections: () => open.size,
    close: async (graceMs) => {
      if (closing) return;
      closing = true;
      publishMcpSocket(dataDir, undefined);
      const stopped = new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
      await Promise.all([...open.values()].map((end) => end().catch(() => undefined)));
      const deadline = Date.now() + graceMs;
      while (open.size > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      for (const socket of open.keys()) socket.destroy();
      await stopped;
      rmSync(path, { force: true });
    },
  };
};
