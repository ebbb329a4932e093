import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopCli } from '../support/cli.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../support/postgres.js';
import {
  closeQuietly,
  connectClient,
  intakeArgs,
  isAlive,
  startServe,
  textOf,
  until,
  type ConnectedClient,
  type ServeProcess,
  type ToolResultLike,
} from './support.js';

/**
 * A gateway process is SIGKILLed while a client is subscribed to it. On 2025-11-25 a session
 * (`Mcp-Session-Id`) lives in the memory of the process that created it, so it dies with that
 * process: the other gateway answers the old session id with 404, and the client must
 * initialize a new session there and subscribe again. What the client follows is in Postgres,
 * not in the dead process, so a change made afterwards reaches it through the other gateway.
 * (A load balancer routes by session id; when the target is gone the client re-initializes.)
 */
let db: ThrowawayDatabase;
const gateways: ServeProcess[] = [];
const opened: ConnectedClient[] = [];
const COLLECTION = 'cogitave://request/';

beforeAll(async () => {
  db = await createThrowawayDatabase('chaos_gateway_kill');
  // Two `serve --role all` processes: each is a gateway and a projector (one leads, one stands
  // by), so killing the leader also tests the read models' fail-over.
  gateways.push(await startServe(db.url));
  gateways.push(await startServe(db.url));
});

afterAll(async () => {
  for (const connected of opened) await closeQuietly(connected);
  for (const gateway of gateways) await stopCli(gateway.running);
  await db.drop();
});

/**
 * A subscriber that fails over: it pings its gateway; when the ping fails it initializes a new
 * session on the next gateway in the list and subscribes again.
 */
const startFailoverSubscriber = async (urls: readonly string[]) => {
  const heard: { uri: string; at: number; gateway: number }[] = [];
  let index = 0;
  let current: ConnectedClient | undefined;
  let failovers = 0;
  let stopped = false;

  const attach = async (at: number): Promise<void> => {
    const connected = await connectClient(urls[at]!, 'chaos-subscriber');
    opened.push(connected);
    connected.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notice) => {
      heard.push({ uri: notice.params.uri, at: Date.now(), gateway: at });
    });
    await connected.client.subscribeResource({ uri: COLLECTION });
    current = connected;
    index = at;
  };

  await attach(0);
  // Functions, not reads: both change while the loop awaits.
  const isStopped = (): boolean => stopped;
  const connection = (): ConnectedClient | undefined => current;
  const watchdog = (async () => {
    while (!isStopped()) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const watched = connection();
      if (isStopped() || !watched) continue;
      const alive = await watched.client.ping({ timeout: 1000 }).then(
        () => true,
        () => false,
      );
      if (alive || isStopped()) continue;
      failovers += 1;
      await closeQuietly(watched);
      current = undefined;
      // The next gateway; keep trying until one accepts a new session.
      for (let attempt = 1; !isStopped() && !connection(); attempt += 1) {
        await attach((index + attempt) % urls.length).catch(() => undefined);
      }
    }
  })();

  return {
    heard,
    get gateway() {
      return index;
    },
    get connected() {
      return current;
    },
    get failovers() {
      return failovers;
    },
    stop: async () => {
      stopped = true;
      await watchdog;
    },
  };
};

/** Whether the process applies every read model (holds their locks), per its /readyz. */
const leads = async (gateway: ServeProcess): Promise<boolean> => {
  const response = await fetch(`${gateway.url}/readyz`);
  const body = (await response.json()) as { projections?: { leader: boolean }[] };
  const projections = body.projections ?? [];
  return projections.length > 0 && projections.every((projection) => projection.leader);
};

const propose = async (connected: ConnectedClient, label: string): Promise<string> => {
  const result = (await connected.client.callTool({
    name: 'request_intake',
    arguments: intakeArgs(label),
  })) as ToolResultLike;
  expect(result.isError, textOf(result)).toBeFalsy();
  return result.structuredContent?.request_id as string;
};

describe('a gateway process killed under subscribed clients', () => {
  it('given a client subscribed through gateway A, when A is SIGKILLed, then the client re-initializes on gateway B, subscribes again, and hears of a change made afterwards', async () => {
    const [a, b] = [gateways[0]!, gateways[1]!];
    const subscriber = await startFailoverSubscriber([a.mcpUrl, b.mcpUrl]);
    const proposer = await connectClient(b.mcpUrl, 'chaos-proposer');
    opened.push(proposer);

    // Before: a change made through B reaches the subscriber on A (through Postgres).
    await propose(proposer, 'before-kill');
    await until(() => subscriber.heard.some((n) => n.gateway === 0), 'a notice through A', 15_000);
    const oldSession = subscriber.connected?.transport.sessionId;
    // A started first and leads the read models (B stands by): killing it kills the projector
    // too, and B must take the projection locks over for the next change to be seen at all.
    expect(await leads(a)).toBe(true);
    expect(await leads(b)).toBe(false);
    expect(oldSession).toBeDefined();

    a.running.child.kill('SIGKILL');
    expect((await a.running.exited).signal).toBe('SIGKILL');

    await until(
      () => subscriber.gateway === 1 && subscriber.connected !== undefined,
      'fail-over to B',
      20_000,
    );
    expect(subscriber.failovers).toBe(1);
    // The session did not survive its process: B does not know it.
    const stale = await fetch(b.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': oldSession!,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    await stale.arrayBuffer();
    expect(stale.status).toBe(404);
    expect(subscriber.connected?.transport.sessionId).not.toBe(oldSession);

    // After: a change made now reaches the re-subscribed client through B.
    const heardBefore = subscriber.heard.length;
    await propose(proposer, 'after-kill');
    await until(
      () =>
        subscriber.heard.slice(heardBefore).some((n) => n.gateway === 1 && n.uri === COLLECTION),
      'a notice through B after the fail-over',
      15_000,
    );
    await subscriber.stop();
    expect(isAlive(b)).toBe(true);
    expect(await leads(b)).toBe(true);
  });
});
