import { chmodSync, rmSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import type { Logger } from '../../runtime/logger.js';
import type { SessionHolder, SharedSession } from './shared-session.js';
import {
  authenticationOk,
  CANCEL_REQUEST,
  errorResponse,
  GSSENC_REQUEST,
  PROTOCOL_3,
  readStartupPacket,
  readyForQuery,
  splitMessages,
  SSL_REQUEST,
  startupMessage,
  startupParameters,
} from './wire.js';

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
// How long a connection the owner ended may take to close its side before it is dropped.
const PEER_CLOSE_MS = 1000;

export interface ChannelOptions {
  readonly session: SharedSession;
  /** A private folder (0700) that holds the socket. */
  readonly directory: string;
  readonly logger: Logger;
}

export const socketPathIn = (directory: string): string =>
  join(directory, `.s.PGSQL.${CHANNEL_PORT}`);

export const startLocalChannel = async (options: ChannelOptions): Promise<LocalChannel> => {
  const { session, logger } = options;
  // The parameters a client is told at start-up are the session's own, asked for once.
  const starter = session.holder({ name: 'channel start-up' });
  const parameters = startupParameters(
    await starter.exec(startupMessage({ user: 'postgres', database: 'postgres' })),
  );
  await starter.end();

  const sockets = new Set<net.Socket>();
  const endings = new Set<Promise<void>>();
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
    sockets.add(socket);
    serial += 1;
    const name = `channel connection ${serial}`;
    let buffer: Buffer = Buffer.alloc(0);
    let started = false;
    let pumping = false;
    let gone = false;
    let ending: Promise<void> | undefined;

    /**
     * Gives the session back at once (an open transaction rolls back) and stops reading. It
     * must not wait for the peer to close its end: a client that is stopped, stuck or gone
     * without a FIN keeps its socket open, and everyone behind it would wait for it forever.
     */
    const endHolder = (): Promise<void> => {
      gone = true;
      ending ??= holder.end().catch((error: unknown) => {
        logger.error({ err: error, connection: name }, 'could not roll back a local connection');
      });
      return ending;
    };

    /** Ends the connection (with a last message), releases the session, drops a peer that stays. */
    const leave = (farewell?: Buffer): void => {
      if (!socket.destroyed) {
        if (farewell) socket.end(farewell);
        else socket.end();
      }
      const drained = endHolder();
      endings.add(drained);
      void drained.finally(() => endings.delete(drained));
      setTimeout(() => socket.destroy(), PEER_CLOSE_MS).unref();
    };
    const fail = (code: string, message: string): void => {
      leave(errorResponse('FATAL', code, message));
    };

    const holder: SessionHolder = session.holder({
      name,
      onIdleInTransaction: () => {
        logger.warn(
          { connection: name },
          'ending a local connection that kept the embedded database in an idle transaction while others waited',
        );
        fail(
          '25P03',
          'terminating connection: idle in a transaction while other processes waited for the embedded database',
        );
      },
    });

    const pump = async (): Promise<void> => {
      if (pumping) return;
      pumping = true;
      try {
        while (!gone) {
          if (!started) {
            const packet = readStartupPacket(buffer);
            if (!packet) return;
            buffer = buffer.subarray(packet.packet.length);
            if (packet.code === SSL_REQUEST || packet.code === GSSENC_REQUEST) {
              socket.write('N');
            } else if (packet.code === PROTOCOL_3) {
              // Start-up parameters are not applied: they would change the session every
              // holder shares. Authentication is the socket's file permissions.
              started = true;
              socket.write(Buffer.concat([authenticationOk(), parameters, readyForQuery('I')]));
            } else if (packet.code === CANCEL_REQUEST) {
              // PGlite runs one statement at a time inside this process: there is nothing to
              // signal. The protocol expects no answer.
              leave();
            } else {
              fail('0A000', 'unsupported frontend protocol; the embedded database speaks 3.0');
            }
            continue;
          }
          const { messages, rest, terminate, invalid } = splitMessages(buffer);
          buffer = rest;
          if (messages.length > 0) {
            socket.pause();
            const output = await holder.exec(messages);
            if (!socket.destroyed) socket.write(output);
            socket.resume();
          }
          if (invalid) fail('08P01', 'invalid message length');
          else if (terminate) {
            leave();
          }
          if (messages.length === 0) return;
        }
      } catch (error) {
        // A message still waiting for the session when its connection went is dropped: that
        // is no failure of the database.
        if (!gone) {
          logger.warn({ err: error, connection: name }, 'local connection failed');
          fail('XX000', 'the embedded database could not run this message');
        }
      } finally {
        pumping = false;
      }
    };

    socket.on('data', (chunk: Buffer) => {
      buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
      void pump();
    });
    socket.on('error', (error) => {
      logger.debug({ err: error, connection: name }, 'local connection error');
    });
    socket.on('close', () => {
      sockets.delete(socket);
      const drained = endHolder();
      endings.add(drained);
      void drained.finally(() => endings.delete(drained));
    });
  };

  const server = net.createServer(serve);
  const path = socketPathIn(options.directory);
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
    logger.error({ err: error }, 'local channel failed');
  });

  return {
    directory: options.directory,
    port: CHANNEL_PORT,
    connections: () => sockets.size,
    close: async (graceMs) => {
      closing = true;
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
    },
  };
};
