/**
 * Edge soak: for a minute, open and abandon what a careless or hostile client leaves behind —
 * 2025-11-25 sessions never deleted, GET streams and 2026-07-28 listen streams cut mid-way,
 * and refused requests (no Accept, wrong Content-Type, bad Host, not JSON, too large) — against
 * the whole /mcp endpoint, and show the process's memory stays flat (heap after a forced GC,
 * sampled every 5 s once warm) while sessions stay within their bound.
 *
 *   npm run soak:edge
 *
 * Environment: SOAK_SECONDS (default 60), TEST_DATABASE_URL (admin connection for the throwaway
 * database). Exits 1 if the heap grew by more than SOAK_MAX_GROWTH_MB (default 16) from the
 * first warm sample to the last, or if sessions outlived their bound.
 */
import { request as httpRequest } from 'node:http';
import { createThrowawayDatabase } from '../support/postgres.js';
import { INITIALIZE_2025, MCP_POST_HEADERS, MODERN_META } from '../support/http.js';
import { startGateway } from '../e2e/gateway/support.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? '60');
const MAX_GROWTH_MB = Number(process.env.SOAK_MAX_GROWTH_MB ?? '16');
const IDLE_MS = 3000;
const MAX_SESSIONS = 200;

const gc = (globalThis as { gc?: () => void }).gc;
const heapMb = (): number => {
  gc?.();
  return Math.round((process.memoryUsage().heapUsed / 2 ** 20) * 10) / 10;
};

/** Sends a request and hangs up after `ms` without reading further (an abandoned stream). */
const abandon = async (url: string, init: RequestInit, ms: number): Promise<number> => {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort();
  }, ms);
  try {
    const response = await fetch(url, { ...init, signal: controller.signal });
    await response.body?.cancel().catch(() => undefined);
    return response.status;
  } catch {
    return 0;
  } finally {
    clearTimeout(timer);
  }
};

/** A raw request with a Host header fetch would not let us forge. */
const forgedHost = (url: URL, host: string): Promise<number> =>
  new Promise((resolve) => {
    const req = httpRequest(
      { host: url.hostname, port: url.port, path: '/mcp', method: 'POST', headers: { host } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', () => {
      resolve(0);
    });
    req.end('{}');
  });

const main = async (): Promise<number> => {
  const db = await createThrowawayDatabase('soak_edge');
  const gateway = await startGateway(db.url, {
    COGITAVE_MCP_SESSION_IDLE_MS: String(IDLE_MS),
    COGITAVE_MCP_MAX_SESSIONS: String(MAX_SESSIONS),
  });
  const mcp = gateway.mcpUrl;
  const statuses = new Map<string, number>();
  const count = (what: string, status: number): void => {
    const key = `${what} ${String(status)}`;
    statuses.set(key, (statuses.get(key) ?? 0) + 1);
  };
  const samples: { second: number; heapMb: number; sessions: number; rssMb: number }[] = [];
  const started = Date.now();
  const deadline = started + SECONDS * 1000;
  let maxSessions = 0;
  try {
    const round = async (): Promise<void> => {
      // A session opened and never deleted; its GET stream cut after 200 ms.
      const init = await fetch(mcp, {
        method: 'POST',
        headers: MCP_POST_HEADERS,
        body: JSON.stringify(INITIALIZE_2025),
      });
      await init.text();
      count('initialize', init.status);
      const session = init.headers.get('mcp-session-id');
      if (session) {
        count(
          'get-stream',
          await abandon(
            mcp,
            {
              headers: {
                accept: 'text/event-stream',
                'mcp-session-id': session,
                'mcp-protocol-version': '2025-11-25',
              },
            },
            200,
          ),
        );
      }
      // A 2026-07-28 listen stream cut after 200 ms.
      count(
        'listen',
        await abandon(
          mcp,
          {
            method: 'POST',
            headers: {
              ...MCP_POST_HEADERS,
              'mcp-protocol-version': '2026-07-28',
              'mcp-method': 'subscriptions/listen',
            },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id: 1,
              method: 'subscriptions/listen',
              params: {
                _meta: MODERN_META,
                notifications: { resourceSubscriptions: ['cogitave://request/'] },
              },
            }),
          },
          200,
        ),
      );
      // Refused before anything is allocated.
      const refused: [string, RequestInit][] = [
        [
          'no-accept',
          {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(INITIALIZE_2025),
          },
        ],
        [
          'wrong-type',
          {
            method: 'POST',
            headers: { ...MCP_POST_HEADERS, 'content-type': 'text/plain' },
            body: JSON.stringify(INITIALIZE_2025),
          },
        ],
        ['not-json', { method: 'POST', headers: MCP_POST_HEADERS, body: '{"jsonrpc":' }],
        [
          'too-large',
          { method: 'POST', headers: MCP_POST_HEADERS, body: 'x'.repeat(5 * 1024 * 1024) },
        ],
      ];
      for (const [what, init] of refused) {
        const response = await fetch(mcp, init).catch(() => undefined);
        await response?.text().catch(() => undefined);
        count(what, response?.status ?? 0);
      }
      count('bad-host', await forgedHost(new URL(mcp), 'localhost:99999'));
    };

    let nextSample = started + 10_000;
    while (Date.now() < deadline) {
      await Promise.all([round(), round(), round(), round()]);
      maxSessions = Math.max(maxSessions, gateway.endpoint.sessions.count);
      if (Date.now() >= nextSample) {
        nextSample += 5_000;
        samples.push({
          second: Math.round((Date.now() - started) / 1000),
          heapMb: heapMb(),
          rssMb: Math.round(process.memoryUsage().rss / 2 ** 20),
          sessions: gateway.endpoint.sessions.count,
        });
      }
    }
    // Abandoned sessions expire after the idle timeout: none should be left after it.
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS * 2 + 1000));
    const leftSessions = gateway.endpoint.sessions.count;
    const leftStreams = gateway.endpoint.listenStreams + gateway.endpoint.sessions.openStreams;
    const first = samples[0];
    const last = samples.at(-1);
    const growth = first && last ? Math.round((last.heapMb - first.heapMb) * 10) / 10 : 0;
    console.log(
      JSON.stringify(
        {
          seconds: SECONDS,
          gcForced: gc !== undefined,
          requests: Object.fromEntries([...statuses.entries()].sort()),
          samples,
          heapGrowthMb: growth,
          maxSessionsSeen: maxSessions,
          sessionsLeftAfterIdle: leftSessions,
          streamsLeft: leftStreams,
        },
        null,
        2,
      ),
    );
    const ok =
      growth <= MAX_GROWTH_MB &&
      maxSessions <= MAX_SESSIONS &&
      leftSessions === 0 &&
      leftStreams === 0;
    console.log(ok ? 'edge soak: memory flat, nothing left behind' : 'edge soak: FAILED');
    return ok ? 0 : 1;
  } finally {
    await gateway.close();
    await db.drop();
  }
};

process.exitCode = await main();
