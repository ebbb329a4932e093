import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import { INITIALIZE_2025, MCP_POST_HEADERS } from '../../support/http.js';
import { eventually, startGateway, tokenTable, type GatewayUnderTest } from './support.js';

/**
 * Bounded MCP sessions over real HTTP: a refused request allocates nothing, one caller cannot
 * take every session or listen stream, and a session that listens stays alive while its stream
 * is open (and only then).
 */
const ALICE = 'alice-token-0b1e';
const BOB = 'bob-token-77c4';
let db: ThrowawayDatabase;
let gateway: GatewayUnderTest;
/** Change-feed listeners registered now (each connection-scoped server follows the feed). */
let feedListeners = 0;

beforeAll(async () => {
  db = await createThrowawayDatabase('gateway_sessions');
  gateway = await startGateway(db.url, {
    MCP_TOKENS: tokenTable({
      [ALICE]: { name: 'alice', grants: {} },
      [BOB]: { name: 'bob', grants: {} },
    }),
    COGITAVE_MCP_MAX_SESSIONS: '5',
    COGITAVE_MCP_MAX_SESSIONS_PER_CALLER: '3',
    COGITAVE_MCP_SESSION_IDLE_MS: '1000',
    COGITAVE_HTTP_REQUEST_TIMEOUT_MS: '1000',
    COGITAVE_MCP_MAX_LISTEN_STREAMS_PER_CALLER: '2',
  });
  const changes = gateway.app.changes;
  const onChange = changes.onChange.bind(changes);
  changes.onChange = (listener) => {
    feedListeners += 1;
    const stop = onChange(listener);
    return () => {
      feedListeners -= 1;
      stop();
    };
  };
});

afterAll(async () => {
  await gateway.close();
  await db.drop();
});

const post = (token: string, body: string, headers: Record<string, string> = {}) =>
  fetch(gateway.mcpUrl, {
    method: 'POST',
    headers: { ...MCP_POST_HEADERS, authorization: `Bearer ${token}`, ...headers },
    body,
  });

/** A 2025-11-25 session of `token`; the initialize answer's stream is drained. */
const openSession = async (token: string): Promise<Response> => {
  const response = await post(token, JSON.stringify(INITIALIZE_2025));
  await response.text();
  return response;
};

const endSession = (token: string, sessionId: string) =>
  fetch(gateway.mcpUrl, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}`, 'mcp-session-id': sessionId },
  });

const toolsList = (token: string, sessionId: string) =>
  post(token, JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }), {
    'mcp-session-id': sessionId,
    'mcp-protocol-version': '2025-11-25',
  });

describe('nothing is allocated before a request is valid', () => {
  it('given 300 initializes the transport refuses (no Accept: 406, wrong Content-Type: 415, not JSON: -32700), then no session, no server and no change-feed listener is left behind', async () => {
    const listenersBefore = feedListeners;
    const statuses = new Set<number>();
    for (let i = 0; i < 100; i += 1) {
      const refused = await Promise.all([
        post(ALICE, JSON.stringify(INITIALIZE_2025), { accept: 'application/json' }),
        post(ALICE, JSON.stringify(INITIALIZE_2025), { 'content-type': 'text/plain' }),
        post(ALICE, '{"jsonrpc": "2.0", "id": 1, "method": "initi'),
      ]);
      for (const response of refused) {
        statuses.add(response.status);
        await response.text();
      }
    }
    expect([...statuses].sort()).toEqual([400, 406, 415]);
    expect(gateway.endpoint.sessions.count).toBe(0);
    expect(feedListeners).toBe(listenersBefore);
    // The caller's quota was never charged: it may still open its full share.
    const opened = await Promise.all([openSession(ALICE), openSession(ALICE), openSession(ALICE)]);
    expect(opened.map((response) => response.status)).toEqual([200, 200, 200]);
    expect(feedListeners).toBe(listenersBefore + 3);
    for (const response of opened)
      await endSession(ALICE, response.headers.get('mcp-session-id') ?? '');
    await eventually(() => feedListeners === listenersBefore, 'the followers to stop');
  });

  it('given a body that is not JSON, when posted with or without a session, then a JSON-RPC parse error (-32700), not a session complaint', async () => {
    const response = await post(ALICE, 'not json at all');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: { code: -32700 } });
  });

  it('given a message nested 8,000 levels deep, then -32602 with its id (never a stack overflow)', async () => {
    const deep = `${'['.repeat(8000)}${']'.repeat(8000)}`;
    const response = await post(
      ALICE,
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"docs_search","arguments":{"query":${deep}}}}`,
    );
    expect(await response.json()).toMatchObject({ id: 7, error: { code: -32602 } });
  });
});

describe('per-caller and global session caps', () => {
  it('given a caller at its cap, when it opens one more, then 429 with Retry-After while another caller still gets sessions, up to the global cap (503)', async () => {
    const alice = await Promise.all([openSession(ALICE), openSession(ALICE), openSession(ALICE)]);
    expect(alice.map((response) => response.status)).toEqual([200, 200, 200]);
    const fourth = await post(ALICE, JSON.stringify(INITIALIZE_2025));
    expect(fourth.status).toBe(429);
    expect(fourth.headers.get('retry-after')).toBe('30');
    expect(await fourth.text()).toContain('token:alice already holds 3 MCP sessions');

    const bob = [await openSession(BOB), await openSession(BOB)];
    expect(bob.map((response) => response.status)).toEqual([200, 200]);
    const full = await post(BOB, JSON.stringify(INITIALIZE_2025));
    expect(full.status).toBe(503);
    await full.text();

    // Ending one of alice's sessions frees her quota and a global slot.
    await endSession(ALICE, alice[0].headers.get('mcp-session-id') ?? '');
    const again = await openSession(ALICE);
    expect(again.status).toBe(200);
    for (const response of [...alice.slice(1), again])
      await endSession(ALICE, response.headers.get('mcp-session-id') ?? '');
    for (const response of bob) await endSession(BOB, response.headers.get('mcp-session-id') ?? '');
    expect(gateway.endpoint.sessions.count).toBe(0);
  });

  it('given a caller at its listen-stream cap, when it opens one more subscriptions/listen, then it is refused until one closes', async () => {
    const client = new ModernClient(
      { name: 'listener', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new ModernHttp(new URL(gateway.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
      }),
    );
    try {
      const first = await client.listen({ resourcesListChanged: true });
      const second = await client.listen({ resourcesListChanged: true });
      expect(gateway.endpoint.listenStreams).toBe(2);
      await expect(client.listen({ resourcesListChanged: true })).rejects.toThrow();
      await first.close();
      await eventually(() => gateway.endpoint.listenStreams === 1, 'the closed stream');
      const third = await client.listen({ resourcesListChanged: true });
      await third.close();
      await second.close();
      await eventually(() => gateway.endpoint.listenStreams === 0, 'every stream closed');
    } finally {
      await client.close();
    }
  });
});

describe('idle expiry', () => {
  it('given a session that only listens on its GET stream, when it sends nothing for longer than the idle timeout, then it stays alive while the stream is open and expires after', async () => {
    const listening = await openSession(BOB);
    const quiet = await openSession(BOB);
    const listeningId = listening.headers.get('mcp-session-id') ?? '';
    const quietId = quiet.headers.get('mcp-session-id') ?? '';
    const controller = new AbortController();
    const stream = await fetch(gateway.mcpUrl, {
      headers: {
        authorization: `Bearer ${BOB}`,
        accept: 'text/event-stream',
        'mcp-session-id': listeningId,
        'mcp-protocol-version': '2025-11-25',
      },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    // Three idle timeouts, longer than the request timeout too: streams outlive both.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await toolsList(BOB, quietId)).status).toBe(404);
    const alive = await toolsList(BOB, listeningId);
    expect(alive.status).toBe(200);
    await alive.text();

    controller.abort();
    await eventually(() => gateway.endpoint.sessions.openStreams === 0, 'the stream to close');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await toolsList(BOB, listeningId)).status).toBe(404);
    expect(gateway.endpoint.sessions.count).toBe(0);
  });
});
