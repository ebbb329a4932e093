import { chmodSync, rmSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import type { Logger } from '../../runtime/logger.js';
import { serveConnection, type ChannelConnections } from './channel-connection.js';
import type { SharedSession } from './shared-session.js';
import { errorResponse, startupMessage, startupParameters } from './wire.js';

/**
 * The owner's local channel: a Unix socket in a private folder that speaks the Postgres wire
 * protocol, so another `cogitave` process reaches the owner's PGlite with an ordinary `pg`
 * pool, as it would a server Postgres. Every connection is a holder of the shared session
 * (see shared-session.ts). There is no TCP listener and no password: the socket is reachable
 * only by the user who owns the folder (directory 0700, socket 0600).
 */
export interface LocalChannel {
  /** The folder `pg` is given as `host`; the socket in it is `.s.PGSQL.<port>`. */
  readonly directory: string;
  readonly port: number;
  connections(): number;
  /**
   * Stops accepting, lets open connections finish for up to `graceMs`, then ends the rest
   * (their open transactions roll back) and removes the socket.
   */
  close(graceMs: number): Promise<void>;
}

export const CHANNEL_PORT = 5432;
const MAX_CONNECTIONS = 64;

export interface ChannelOptions {
  readonly session: SharedSession;
  /** A private folder (0700) that holds the socket. */
  readonly directory: string;
  readonly logger: Logger;
}

export const socketPathIn = (directory: string): string =>
  join(directory, `.s.PGSQL.${CHANNEL_PORT}`);

/** A listening Unix socket at `path`, private to this user (0600). */
export const listenPrivately = async (
  path: string,
  serve: (socket: net.Socket) => void,
  logger: Logger,
  what = 'local channel',
): Promise<net.Server> => {
  const server = net.createServer(serve);
  // Whoever left this socket behind is gone: only the lock holder gets here.
  rmSync(path, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ path, readableAll: false, writableAll: false }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(path, 0o600);
  server.on('error', (error) => {
    logger.error({ err: error }, `${what} failed`);
  });
  return server;
};

/** Stops accepting, waits up to `graceMs` for open connections, then ends the rest. */
const closeChannel = async (
  server: net.Server,
  connections: ChannelConnections,
  path: string,
  graceMs: number,
): Promise<void> => {
  const { sockets, endings } = connections;
  const closed = new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  const deadline = Date.now() + graceMs;
  while (sockets.size > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const socket of sockets) {
    socket.end(
      errorResponse(
        'FATAL',
        '57P01',
        'the process that owns the embedded database stopped; run the command again',
      ),
    );
    socket.destroySoon();
  }
  await closed;
  await Promise.all(endings);
  rmSync(path, { force: true });
};

export const startLocalChannel = async (options: ChannelOptions): Promise<LocalChannel> => {
  const { session, logger } = options;
  // The parameters a client is told at start-up are the session's own, asked for once.
  const starter = session.holder({ name: 'channel start-up' });
  const parameters = startupParameters(
    await starter.exec(startupMessage({ user: 'postgres', database: 'postgres' })),
  );
  await starter.end();

  const connections: ChannelConnections = {
    session,
    logger,
    parameters,
    sockets: new Set<net.Socket>(),
    endings: new Set<Promise<void>>(),
  };
  const { sockets } = connections;
  let closing = false;
  let serial = 0;

  const serve = (socket: net.Socket): void => {
    if (closing || sockets.size >= MAX_CONNECTIONS) {
      socket.end(
        errorResponse(
          'FATAL',
          closing ? '57P03' : '53300',
          closing
            ? 'the process that owns the embedded database is shutting down'
            : `too many connections to the embedded database's owner (at most ${MAX_CONNECTIONS})`,
        ),
      );
      return;
    }
    serial += 1;
    serveConnection(connections, socket, `channel connection ${serial}`);
  };

  const path = socketPathIn(options.directory);
  const server = await listenPrivately(path, serve, logger);

  return {
    directory: options.directory,
    port: CHANNEL_PORT,
    connections: () => sockets.size,
    close: async (graceMs) => {
      closing = true;
      await closeChannel(server, connections, path, graceMs);
    },
  };
};
