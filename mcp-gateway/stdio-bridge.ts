import net from 'node:net';

/**
 * A `serve --stdio` whose data folder another `serve` owns cannot open the database (it has
 * one owner), so it hands its stdio to the owner: stdin → the owner's MCP socket → stdout,
 * byte for byte. The MCP session is the owner's; this process only carries bytes.
 */
export type BridgeEnd =
  /** The client closed stdin: the session is over. */
  | 'client-ended'
  /** The owner closed the socket (it stopped or was killed) while the client still talked. */
  | 'owner-gone';

// After the client closes stdin, how long the owner has to close its end of the socket.
const OWNER_CLOSE_WAIT_MS = 2000;

/** A connection to the owner's MCP socket, or undefined when nobody listens there. */
export const connectMcpSocket = (path: string): Promise<net.Socket | undefined> =>
  new Promise((resolve) => {
    const socket = net.createConnection({ path, allowHalfOpen: true });
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(undefined);
    });
  });

export interface BridgeStreams {
  readonly input: NodeJS.ReadableStream & { destroy?: () => void };
  readonly output: NodeJS.WritableStream;
}

/** Pipes `input` to `socket` and `socket` to `output` until one side ends. */
export const bridge = (socket: net.Socket, streams: BridgeStreams): Promise<BridgeEnd> =>
  new Promise((resolve) => {
    const { input, output } = streams;
    let clientEnded = false;
    let settled = false;
    const settle = (end: BridgeEnd): void => {
      if (settled) return;
      settled = true;
      input.unpipe(socket);
      socket.unpipe(output);
      // Nothing more is read: stdin must not keep the process alive.
      input.destroy?.();
      socket.destroy();
      resolve(end);
    };
    socket.on('error', () => {
      settle(clientEnded ? 'client-ended' : 'owner-gone');
    });
    // The owner's end: its FIN ('end') or the connection going ('close').
    socket.once('end', () => {
      settle(clientEnded ? 'client-ended' : 'owner-gone');
    });
    socket.once('close', () => {
      settle(clientEnded ? 'client-ended' : 'owner-gone');
    });
    input.once('end', () => {
      clientEnded = true;
      // The half-close tells the owner the session is over (as stdin's end tells a stdio
      // server); it answers by closing its end, or is given a moment and let go.
      setTimeout(() => {
        settle('client-ended');
      }, OWNER_CLOSE_WAIT_MS).unref();
    });
    input.pipe(socket, { end: true });
    socket.pipe(output, { end: false });
  });
