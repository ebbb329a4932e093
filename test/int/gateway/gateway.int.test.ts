import { Client, InMemoryTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assertSafeBind, createTokenAuth, hashToken } from '../../../mcp-gateway/auth/tokens.js';
import {
  createGatewayServices,
  type ComposedGatewayServices,
} from '../../../bin/gateway-services.js';
import { BoundedEventStore } from '../../../mcp-gateway/http/event-store.js';
import { createMcpGateway, type McpGateway } from '../../../mcp-gateway/server/factory.js';
import { defineTool, LOCAL_CALLER, type Caller } from '../../../mcp-gateway/registry.js';
import { ConnectionSubscriptions } from '../../../mcp-gateway/server/subscriptions.js';
import { createApp, type App } from '../../../bin/app.js';
import { loadConfig } from '../../../services/runtime/config.js';
import { CogitaveError } from '../../../services/runtime/errors.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

/**
 * The server factory against real Postgres through an in-memory MCP connection: errors as
 * data, grants, cursor-paginated and filtered resources/list, and the pieces behind the HTTP
 * transport (token table, bind check, bounded event store, subscription deliveries).
 */
const echo = defineTool({
  name: 'echo_note',
  title: 'Echo a note',
  description: 'Returns the note.',
  input: z.object({ note: z.string().min(3), times: z.number().int().max(3).optional() }).strict(),
  output: z.object({ note: z.string() }),
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  access: 'read',
  handler: (args) => Promise.resolve({ note: args.note }),
  render: (result) => result.note,
});

const slow = defineTool({
  name: 'slow_count',
  title: 'Count slowly',
  description: 'Counts to three, reporting progress.',
  input: z.object({}),
  output: z.object({ counted: z.number() }),
  annotations: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  access: 'read',
  handler: async (_args, context) => {
    for (let step = 1; step <= 3; step += 1)
      await context.progress(step, 3, `step ${String(step)}`);
    return { counted: 3 };
  },
  render: (result) => String(result.counted),
});

const failing = (error: Error) =>
  defineTool({
    name: error instanceof CogitaveError ? 'refusing_tool' : 'broken_tool',
    title: 'Fails',
    description: 'Always fails.',
    input: z.object({}),
    output: z.object({ status: z.string(), error: z.string().optional() }),
    annotations: {
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    },
    access: 'network-write',
    handler: () => Promise.reject(error),
    ...(error instanceof CogitaveError
      ? { errorResult: (e: CogitaveError) => ({ status: 'error', error: e.message }) }
      : {}),
    render: (result) => result.status,
  });

let db: ThrowawayDatabase;
let app: App;
let composed: ComposedGatewayServices;
let gateway: McpGateway;

beforeAll(async () => {
  db = await createThrowawayDatabase('gateway_factory');
  app = await createApp(
    loadConfig({ DATABASE_URL: db.url, CATALOG_DIR: 'none' }),
    createLogger('silent'),
  );
  composed = await createGatewayServices(app);
  gateway = createMcpGateway({
    tools: [
      echo,
      slow,
      failing(new CogitaveError('FAILED_PRECONDITION', 'network "x" does not exist')),
      failing(new Error('disk on fire')),
    ],
    services: composed.services,
    logger: createLogger('silent'),
    version: '0.0.0-test',
  });
  // 250 index rows of two types and two products (the projections own real ones).
  await app.database.pool.query(
    `INSERT INTO read_model.resources (uri, type, collection, product, title, content_hash, last_modified, projection, position)
     SELECT 'cogitave://' || t || '/item-' || lpad(i::text, 3, '0'), t, 'cogitave://' || t || '/',
            CASE WHEN i % 2 = 0 THEN 'alpha' ELSE 'beta' END, 'Item ' || i, md5(i::text), now(), 'test', '0'
       FROM generate_series(1, 125) AS i, unnest(ARRAY['doc', 'adr']) AS t`,
  );
});

afterAll(async () => {
  await composed.close();
  await app.close();
  await db.drop();
});

const connect = async (caller: Caller): Promise<Client> => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.createServer(caller, { era: 'legacy' }).connect(serverSide);
  const client = new Client({ name: 'int', version: '1.0.0' });
  await client.connect(clientSide);
  return client;
};

const text = (result: { content: unknown }): string => JSON.stringify(result.content);

describe('tool calls: errors as data', () => {
  it('given bad arguments, when called, then isError naming every bad field and the allowed fields', async () => {
    const client = await connect(LOCAL_CALLER);
    const result = await client.callTool({
      name: 'echo_note',
      arguments: { note: 'x', times: 9, loud: true },
    });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('note:');
    expect(text(result)).toContain('times:');
    expect(text(result)).toContain('unknown field loud; allowed: note, times');
  });

  it('given a CogitaveError with an errorResult, when called, then isError with the structured error; anything else is an internal error with a correlation id', async () => {
    const client = await connect(LOCAL_CALLER);
    const refused = await client.callTool({ name: 'refusing_tool', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(refused.structuredContent).toEqual({
      status: 'error',
      error: 'network "x" does not exist',
    });
    expect(text(refused)).toContain('FAILED_PRECONDITION');
    const broken = await client.callTool({ name: 'broken_tool', arguments: {} });
    expect(broken.isError).toBe(true);
    expect(text(broken)).toMatch(/internal error \(correlation id [0-9a-f-]{36}\)/);
    expect(text(broken)).not.toContain('disk on fire');
  });

  it('given a progress callback, when a tool reports progress, then the client receives each step', async () => {
    const client = await connect(LOCAL_CALLER);
    const steps: number[] = [];
    const result = await client.callTool(
      { name: 'slow_count', arguments: {} },
      {
        onprogress: (progress) => {
          steps.push(progress.progress);
        },
      },
    );
    expect(result.structuredContent).toEqual({ counted: 3 });
    expect(steps).toEqual([1, 2, 3]);
  });

  it('given a caller without the networks grant, when it calls a network-write tool, then PERMISSION_DENIED as a tool error', async () => {
    const reader: Caller = {
      actor: 'token:reader',
      grants: { products: '*', types: '*', propose: false, writeNetworks: false },
    };
    const client = await connect(reader);
    const result = await client.callTool({ name: 'refusing_tool', arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('PERMISSION_DENIED');
    expect(text(result)).toContain('networks:write');
  });
});

describe('resources/list', () => {
  it('given 250 resources, when paging with the cursor, then 100 + 100 + 50 in URI order, each once', async () => {
    const client = await connect(LOCAL_CALLER);
    const seen: string[] = [];
    let cursor: string | undefined;
    const pages: number[] = [];
    do {
      // A raw request: listResources() without a cursor aggregates every page itself.
      const page = await client.request({
        method: 'resources/list',
        params: cursor === undefined ? {} : { cursor },
      });
      pages.push(page.resources.length);
      seen.push(...page.resources.map((resource) => resource.uri));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(pages).toEqual([100, 100, 50]);
    expect(new Set(seen).size).toBe(250);
    expect(seen).toEqual([...seen].sort());
  });

  it('given the type/product filter in _meta, when paging, then the filter rides in the cursor', async () => {
    const client = await connect(LOCAL_CALLER);
    const first = await client.listResources({
      _meta: { 'cogitave/filter': { type: 'adr', product: 'alpha' } },
    });
    expect(first.resources).toHaveLength(62);
    expect(first.nextCursor).toBeUndefined();
    expect(first.resources.every((resource) => resource.uri.startsWith('cogitave://adr/'))).toBe(
      true,
    );
    await expect(
      client.listResources({ _meta: { 'cogitave/filter': { type: 'planet' } } }),
    ).rejects.toThrow(/allowed: doc/);
    await expect(client.listResources({ cursor: 'garbage' })).rejects.toThrow(/Invalid cursor/);
  });

  it('given a caller granted one product of one type, when listing, then only those resources', async () => {
    const narrow: Caller = {
      actor: 'token:narrow',
      grants: { products: ['beta'], types: ['doc'], propose: false, writeNetworks: false },
    };
    const client = await connect(narrow);
    const page = await client.listResources();
    expect(page.resources).toHaveLength(63);
    expect(
      page.resources.every(
        (r) =>
          r.uri.startsWith('cogitave://doc/') &&
          (r._meta as { product: string }).product === 'beta',
      ),
    ).toBe(true);
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'cogitave://{type}/{id}',
      'cogitave://doc/{id}',
    ]);
  });
});

describe('transport pieces', () => {
  it('given a token table, when authenticating, then only the hashed token matches; a public bind without tokens is refused naming MCP_TOKENS', () => {
    const auth = createTokenAuth({
      [hashToken('s3cret')]: {
        name: 'ci',
        grants: { products: '*', types: '*', propose: true, writeNetworks: false },
      },
    });
    expect(auth.authenticate('Bearer s3cret')?.actor).toBe('token:ci');
    expect(auth.authenticate(`Bearer ${hashToken('s3cret')}`)).toBeUndefined();
    expect(auth.authenticate('Basic s3cret')).toBeUndefined();
    expect(() => {
      assertSafeBind('0.0.0.0', createTokenAuth({}));
    }).toThrow(/MCP_TOKENS: required when COGITAVE_HTTP_HOST \(0\.0\.0\.0\)/);
    expect(() => {
      assertSafeBind('127.0.0.1', createTokenAuth({}));
    }).not.toThrow();
    expect(() => {
      assertSafeBind('0.0.0.0', auth);
    }).not.toThrow();
  });

  it('given a bounded event store, when more events than its capacity arrive, then the oldest are dropped and replay continues after a retained id', async () => {
    const store = new BoundedEventStore(3);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1)
      ids.push(await store.storeEvent('s1', { jsonrpc: '2.0', method: `m${String(i)}` }));
    expect(store.size).toBe(3);
    const replayed: string[] = [];
    await store.replayEventsAfter(ids[2] ?? '', {
      send: (_id, message) => {
        replayed.push((message as { method: string }).method);
        return Promise.resolve();
      },
    });
    expect(replayed).toEqual(['m3', 'm4']);
    await expect(
      store.replayEventsAfter(ids[0] ?? '', { send: () => Promise.resolve() }),
    ).rejects.toThrow(/no longer retained/);
  });

  it('given URI and collection subscriptions, when changes arrive, then only followed URIs are delivered', () => {
    const subscriptions = new ConnectionSubscriptions();
    subscriptions.add('cogitave://request/req-1');
    subscriptions.add('cogitave://network/');
    const delivery = subscriptions.deliveryFor({
      kind: 'change',
      notice: {
        projection: 'p',
        position: '1' as never,
        uris: ['cogitave://request/req-1', 'cogitave://request/req-2', 'cogitave://network/n1'],
        collections: ['cogitave://network/'],
      },
    });
    expect([...delivery.updated].sort()).toEqual([
      'cogitave://network/',
      'cogitave://network/n1',
      'cogitave://request/req-1',
    ]);
    expect(delivery.listChanged).toBe(true);
    expect(
      subscriptions.deliveryFor({
        kind: 'change',
        notice: {
          projection: 'p',
          position: '2' as never,
          uris: ['cogitave://doc/d'],
          collections: [],
        },
      }),
    ).toEqual({ updated: [], listChanged: false });
  });
});
