import { createHash } from 'node:crypto';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small sticky load balancer for local topologies: a request carrying `Mcp-Session-Id` goes
 * to the gateway that issued that session (2025-11-25 sessions live in one process); anything
 * else goes round-robin. A session it has not seen (the balancer restarted) is hashed to a
 * gateway, so the same id always lands on the same one.
 */
export interface Balancer {
  readonly url: string;
  /** Which gateway each request went to, by index (for tests). */
  readonly routed: number[];
  close(): Promise<void>;
}

const SESSION_HEADER = 'mcp-session-id';

export const startBalancer = async (options: {
  readonly host: string;
  readonly port: number;
  readonly backends: readonly string[];
}): Promise<Balancer> => {
  const backends = options.backends.map((url) => new URL(url));
  if (backends.length === 0) throw new Error('the balancer needs at least one gateway');
  const sessions = new Map<string, number>();
  const routed: number[] = [];
  let next = 0;

  const pick = (session: string | undefined): number => {
    if (session === undefined) {
      next = (next + 1) % backends.length;
      return next;
    }
    const known = sessions.get(session);
    if (known !== undefined) return known;
    return createHash('sha256').update(session).digest().readUInt32BE(0) % backends.length;
  };

  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    const header = req.headers[SESSION_HEADER];
    const index = pick(typeof header === 'string' ? header : undefined);
    routed.push(index);
    const target = backends[index]!;
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        // The gateway checks Host against its allow-list; it sees its own address.
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        const issued = answer.headers[SESSION_HEADER];
        if (typeof issued === 'string') sessions.set(issued, index);
        if (req.method === 'DELETE' && typeof header === 'string') sessions.delete(header);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'application/problem+json' });
        res.end(
          JSON.stringify({
            title: 'Bad Gateway',
            status: 502,
            detail: `${target.host}: ${error.message}`,
          }),
        );
      } else res.destroy(error);
    });
    res.on('close', () => {
      upstream.destroy();
    });
    req.pipe(upstream);
  };

  const server = createServer(forward);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${options.host}:${String(address.port)}`,
    routed,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
};
