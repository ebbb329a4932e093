import type net from 'node:net';
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
} from './wire.js';

// How long a connection the owner ended may take to close its side before it is dropped.
const PEER_CLOSE_MS = 1000;

/** What every connection of one local channel shares. */
export interface ChannelConnections {
  readonly session: SharedSession;
  readonly logger: Logger;
  /** The start-up parameters every client is told (the session's own). */
  readonly parameters: Buffer;
  /** Open sockets; a socket leaves when it closes. */
  readonly sockets: Set<net.Socket>;
  /** Session releases under way; close() waits for them. */
  readonly endings: Set<Promise<void>>;
}

/**
 * One client of the local channel: its socket, the bytes it sent that are not yet run, and
 * its holder of the shared session.
 */
class ChannelConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private started = false;
  private pumping = false;
  private gone = false;
  private ending: Promise<void> | undefined;
  private readonly holder: SessionHolder;

  constructor(
    private readonly shared: ChannelConnections,
    private readonly socket: net.Socket,
    private readonly name: string,
  ) {
    this.holder = shared.session.holder({
      name,
      onIdleInTransaction: () => {
        shared.logger.warn(
          { connection: name },
          'ending a local connection that kept the embedded database in an idle transaction while others waited',
        );
        this.fail(
          '25P03',
          'terminating connection: idle in a transaction while other processes waited for the embedded database',
        );
      },
    });
  }

  received(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    void this.pump();
  }

  closed(): void {
    this.shared.sockets.delete(this.socket);
    this.track(this.endHolder());
  }

  /**
   * Gives the session back at once (an open transaction rolls back) and stops reading. It
   * must not wait for the peer to close its end: a client that is stopped, stuck or gone
   * without a FIN keeps its socket open, and everyone behind it would wait for it forever.
   */
  private endHolder(): Promise<void> {
    this.gone = true;
    this.ending ??= this.holder.end().catch((error: unknown) => {
      this.shared.logger.error(
        { err: error, connection: this.name },
        'could not roll back a local connection',
      );
    });
    return this.ending;
  }

  private track(drained: Promise<void>): void {
    const { endings } = this.shared;
    endings.add(drained);
    void drained.finally(() => endings.delete(drained));
  }

  /** Ends the connection (with a last message), releases the session, drops a peer that stays. */
  private leave(farewell?: Buffer): void {
    const { socket } = this;
    if (!socket.destroyed) {
      if (farewell) socket.end(farewell);
      else socket.end();
    }
    this.track(this.endHolder());
    setTimeout(() => socket.destroy(), PEER_CLOSE_MS).unref();
  }

  private fail(code: string, message: string): void {
    this.leave(errorResponse('FATAL', code, message));
  }

  /** Answers the start-up packet at the front of the buffer; false while it is incomplete. */
  private startUp(): boolean {
    const packet = readStartupPacket(this.buffer);
    if (!packet) return false;
    this.buffer = this.buffer.subarray(packet.packet.length);
    if (packet.code === SSL_REQUEST || packet.code === GSSENC_REQUEST) {
      this.socket.write('N');
    } else if (packet.code === PROTOCOL_3) {
      // Start-up parameters are not applied: they would change the session every
      // holder shares. Authentication is the socket's file permissions.
      this.started = true;
      this.socket.write(
        Buffer.concat([authenticationOk(), this.shared.parameters, readyForQuery('I')]),
      );
    } else if (packet.code === CANCEL_REQUEST) {
      // PGlite runs one statement at a time inside this process: there is nothing to
      // signal. The protocol expects no answer.
      this.leave();
    } else {
      this.fail('0A000', 'unsupported frontend protocol; the embedded database speaks 3.0');
    }
    return true;
  }

  /** Runs the complete messages received, in order, one batch at a time. */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    const { socket } = this;
    try {
      while (!this.gone) {
        if (!this.started) {
          if (!this.startUp()) return;
          continue;
        }
        const { messages, rest, terminate, invalid } = splitMessages(this.buffer);
        this.buffer = rest;
        if (messages.length > 0) {
          socket.pause();
          const output = await this.holder.exec(messages);
          if (!socket.destroyed) socket.write(output);
          socket.resume();
        }
        if (invalid) this.fail('08P01', 'invalid message length');
        else if (terminate) {
          this.leave();
        }
        if (messages.length === 0) return;
      }
    } catch (error) {
      // A message still waiting for the session when its connection went is dropped: that
      // is no failure of the database.
      if (!this.gone) {
        this.shared.logger.warn({ err: error, connection: this.name }, 'local connection failed');
        this.fail('XX000', 'the embedded database could not run this message');
      }
    } finally {
      this.pumping = false;
    }
  }
}

/** Serves `socket` as a holder of the shared session until either side ends it. */
export const serveConnection = (
  shared: ChannelConnections,
  socket: net.Socket,
  name: string,
): void => {
  shared.sockets.add(socket);
  const connection = new ChannelConnection(shared, socket, name);
  socket.on('data', (chunk: Buffer) => {
    connection.received(chunk);
  });
  socket.on('error', (error) => {
    shared.logger.debug({ err: error, connection: name }, 'local connection error');
  });
  socket.on('close', () => {
    connection.closed();
  });
};
