import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';
import { INITIALIZE_2025, MCP_POST_HEADERS } from '../../support/http.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';
import {
  callEveryTool,
  listAndCallEveryTool,
  eventually,
  ingestShippedCorpus,
  startGateway,
  waitForProjections,
  type GatewayUnderTest,
  type ToolResult,
} from './support.js';
import { TOOL_SAMPLES } from './tool-samples.js';

/**
 * The MCP gateway over Streamable HTTP with real clients: the v1 SDK on 2025-11-25 (sessions,
 * resources/subscribe, resumable SSE) and the v2 SDK on 2026-07-28 (per-request envelope,
 * server/discover, subscriptions/listen), against two gateway replicas on one Postgres.
 */
let db: ThrowawayDatabase;
let a: GatewayUnderTest;
let b: GatewayUnderTest;

beforeAll(async () => {
  db = await createThrowawayDatabase('gateway_http');
  a = await startGateway(db.url);
  b = await startGateway(db.url);
  await ingestShippedCorpus(a.app);
  await waitForProjections([a.app, b.app]);
});

afterAll(async () => {
  await b.close();
  await a.close();
  await db.drop();
});

const connectLegacy = async (url: string, headers: Record<string, string> = {}) => {
  const client = new LegacyClient({ name: 'e2e-v1', version: '1.0.0' });
  const transport = new LegacyHttp(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
};

const connectModern = async (url: string) => {
  const client = new ModernClient(
    { name: 'e2e-v2', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(new ModernHttp(new URL(url)));
  return client;
};

describe('tools on both protocol revisions', () => {
  it('given a v1 client, when it initializes, lists tools and calls every tool, then 2025-11-25 with a session and every result matches its outputSchema', async () => {
    const { client, transport } = await connectLegacy(a.mcpUrl);
    try {
      expect(transport.protocolVersion).toBe('2025-11-25');
      expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(client.getInstructions()).toContain('describe_schema');
      expect(client.getServerCapabilities()).toMatchObject({
        tools: { listChanged: false },
        resources: { subscribe: true, listChanged: true },
        logging: {},
        completions: {},
      });
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(
        ALL_TOOLS.map((tool) => tool.name).sort(),
      );
      for (const tool of tools) {
        expect(tool.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
        expect(tool.outputSchema?.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
        expect(tool.title, tool.name).toBeTruthy();
        expect(tool.annotations, tool.name).toMatchObject({
          readOnlyHint: expect.any(Boolean) as unknown,
        });
      }
      await callEveryTool(
        tools,
        (name, args) =>
          client.callTool({
            name,
            arguments: args as Record<string, unknown>,
          }) as Promise<ToolResult>,
        'v1',
      );
    } finally {
      await client.close();
    }
  });

  it('given a v2 client in auto negotiation, when it connects and calls every tool, then 2026-07-28 without a session and every result matches its outputSchema', async () => {
    const client = await connectModern(a.mcpUrl);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect(client.getInstructions()).toContain('describe_schema');
      await listAndCallEveryTool(client, 'v2');
    } finally {
      await client.close();
    }
  });

  it('given bad arguments, when either client calls a tool, then a tool error naming each bad field and what is allowed (no protocol error)', async () => {
    const { client } = await connectLegacy(a.mcpUrl);
    const modern = await connectModern(a.mcpUrl);
    try {
      for (const result of [
        (await client.callTool({
          name: 'list_requests',
          arguments: { limit: 500, stage: 'nowhere', colour: 'red' },
        })) as ToolResult,
        (await modern.callTool({
          name: 'list_requests',
          arguments: { limit: 500, stage: 'nowhere', colour: 'red' },
        })) as ToolResult,
      ]) {
        expect(result.isError).toBe(true);
        const text = JSON.stringify(result.content);
        expect(text).toContain('INVALID_ARGUMENT');
        expect(text).toContain('limit');
        expect(text).toContain('stage: must be one of');
        expect(text).toContain('colour');
      }
      // An unknown tool is a protocol error (-32602), which the v1 client throws.
      await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(
        /-32602.*Unknown tool "no_such_tool"/,
      );
    } finally {
      await client.close();
      await modern.close();
    }
  });
});

describe('resources', () => {
  it('given the catalog and requests, when listing templates, listing with a type filter and reading, then typed templates, filtered entries and the document with contentHash and lastModified', async () => {
    const { client } = await connectLegacy(a.mcpUrl);
    try {
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((template) => template.uriTemplate)).toContain(
        'cogitave://{type}/{id}',
      );
      expect(resourceTemplates.find((t) => t.uriTemplate === 'cogitave://adr/{id}')).toMatchObject({
        mimeType: 'application/json',
        icons: [expect.objectContaining({ mimeType: 'image/svg+xml' })],
      });
      const adrs = await client.listResources({ _meta: { 'cogitave/filter': { type: 'adr' } } });
      expect(adrs.resources.length).toBeGreaterThan(0);
      expect(adrs.resources.every((resource) => resource.uri.startsWith('cogitave://adr/'))).toBe(
        true,
      );
      const first = adrs.resources[0];
      if (!first) throw new Error('no ADR resource');
      const read = await client.readResource({ uri: first.uri });
      const [content] = read.contents;
      expect(content?.mimeType).toBe('application/json');
      expect(content?._meta).toEqual({
        contentHash: (first._meta as { contentHash: string }).contentHash,
        lastModified: (first._meta as { lastModified: string }).lastModified,
      });
      expect(JSON.parse((content as { text: string }).text)).toMatchObject({
        uid: expect.any(String) as unknown,
      });
      const collection = await client.readResource({ uri: 'cogitave://adr/' });
      const listing = JSON.parse((collection.contents[0] as { text: string }).text) as {
        items: unknown[];
      };
      expect(listing.items).toHaveLength(adrs.resources.length);
      await expect(client.readResource({ uri: 'cogitave://adr/does-not-exist' })).rejects.toThrow(
        /not found/i,
      );
      const completion = await client.complete({
        ref: { type: 'ref/resource', uri: 'cogitave://{type}/{id}' },
        argument: { name: 'type', value: 'lea' },
      });
      expect(completion.completion.values).toEqual(['learning-path']);
      const ids = await client.complete({
        ref: { type: 'ref/resource', uri: 'cogitave://adr/{id}' },
        argument: { name: 'id', value: 'cogitave.adr.000' },
      });
      expect(ids.completion.values.length).toBe(adrs.resources.length);
    } finally {
      await client.close();
    }
  });
});

describe('change notifications across gateway replicas', () => {
  it('given subscriptions on replica A (a v1 session: one request and the request collection; a v2 listen stream), when a request is proposed and advanced through replica B, then A delivers resources/updated and list_changed', async () => {
    const writer = await connectLegacy(b.mcpUrl);
    const seed = (await writer.client.callTool({
      name: 'request_intake',
      arguments: TOOL_SAMPLES.request_intake?.args({ suffix: 'notify-1' }) as Record<
        string,
        unknown
      >,
    })) as ToolResult;
    const requestId = seed.structuredContent?.request_id as string;
    const requestUri = `cogitave://request/${requestId}`;
    await waitForProjections([a.app, b.app]);

    const legacy = await connectLegacy(a.mcpUrl);
    const legacyUpdated: string[] = [];
    let legacyListChanged = 0;
    legacy.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
      legacyUpdated.push(note.params.uri);
      return Promise.resolve();
    });
    legacy.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      legacyListChanged += 1;
      return Promise.resolve();
    });
    await legacy.client.subscribeResource({ uri: requestUri });
    await legacy.client.subscribeResource({ uri: 'cogitave://request/' });

    const modern = await connectModern(a.mcpUrl);
    const modernUpdated: string[] = [];
    modern.setNotificationHandler('notifications/resources/updated', (note) => {
      modernUpdated.push(note.params.uri);
    });
    const listen = await modern.listen({
      resourceSubscriptions: [requestUri, 'cogitave://request/'],
      resourcesListChanged: true,
    });
    try {
      // A new request joins the collection.
      const second = (await writer.client.callTool({
        name: 'request_intake',
        arguments: TOOL_SAMPLES.request_intake?.args({ suffix: 'notify-2' }) as Record<
          string,
          unknown
        >,
      })) as ToolResult;
      const secondUri = `cogitave://request/${second.structuredContent?.request_id as string}`;
      await eventually(
        () => legacyListChanged > 0 && legacyUpdated.includes(secondUri),
        'list_changed and the new member on the v1 session',
      );
      expect(legacyUpdated).toContain('cogitave://request/');
      await eventually(
        () => modernUpdated.includes('cogitave://request/'),
        'collection update on v2',
      );

      // The followed request changes.
      const advanced = (await writer.client.callTool({
        name: 'advance_stage',
        arguments: TOOL_SAMPLES.advance_stage?.args({ suffix: 'x', requestId }) as Record<
          string,
          unknown
        >,
      })) as ToolResult;
      expect(advanced.isError).toBeFalsy();
      await eventually(
        () => legacyUpdated.includes(requestUri),
        'request update on the v1 session',
      );
      await eventually(() => modernUpdated.includes(requestUri), 'request update on v2');
    } finally {
      await listen.close();
      await modern.close();
      await legacy.client.close();
      await writer.client.close();
    }
  });
});

describe('HTTP transport', () => {
  const initialize = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, ...headers },
      body: JSON.stringify(INITIALIZE_2025),
    });

  it('given a foreign Origin or Host, when calling /mcp, then 403 and no session', async () => {
    const origin = await initialize(a.mcpUrl, { origin: 'https://evil.example' });
    expect(origin.status).toBe(403);
    expect(origin.headers.get('mcp-session-id')).toBeNull();
    // fetch cannot forge Host; a raw request can (as a DNS-rebinding page's browser would).
    const hostStatus = await new Promise<number>((resolve, reject) => {
      const url = new URL(a.mcpUrl);
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            host: 'evil.example',
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    });
    expect(hostStatus).toBe(403);
    const local = await initialize(a.mcpUrl, { origin: 'http://localhost:5173' });
    expect(local.status).toBe(200);
  });

  it('given a session, when the client DELETEs it, then 200 and the session id is unknown afterwards (404)', async () => {
    const { client, transport } = await connectLegacy(a.mcpUrl);
    const sessionId = transport.sessionId ?? '';
    await transport.terminateSession();
    await client.close();
    const after = await fetch(a.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    expect(after.status).toBe(404);
  });

  it('given a standalone SSE stream that drops, when a change happens meanwhile and the client reconnects with Last-Event-ID, then the missed notification is replayed', async () => {
    const init = await initialize(a.mcpUrl);
    const sessionId = init.headers.get('mcp-session-id') ?? '';
    await init.body?.cancel();
    const headers = {
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    };
    await fetch(a.mcpUrl, {
      method: 'POST',
      headers: {
        ...headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    });
    const readEvents = async (response: Response, until: (text: string) => boolean) => {
      const reader = response.body?.getReader();
      if (!reader) throw new Error('no body');
      const decoder = new TextDecoder();
      let text = '';
      const deadline = Date.now() + 10_000;
      while (!until(text) && Date.now() < deadline) {
        const { value, done } = (await reader.read()) as { done: boolean; value?: Uint8Array };
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      await reader.cancel();
      return text;
    };
    const propose = async (suffix: string): Promise<void> => {
      const writer = await connectLegacy(b.mcpUrl);
      await writer.client.callTool({
        name: 'request_intake',
        arguments: TOOL_SAMPLES.request_intake?.args({ suffix }) as Record<string, unknown>,
      });
      await writer.client.close();
    };
    const controller = new AbortController();
    const first = await fetch(a.mcpUrl, {
      headers: { ...headers, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(first.status).toBe(200);
    // A change through the other replica reaches the open stream with an event id.
    const seen = readEvents(first, (text) => /^id: .+$/m.test(text));
    await propose('resume-1');
    const primed = await seen;
    const lastEventId = /^id: (.+)$/m.exec(primed)?.[1] ?? '';
    expect(lastEventId).not.toBe('');
    controller.abort();

    // While no stream is open, another change is made.
    await propose('resume-2');
    await waitForProjections([a.app, b.app]);
    await new Promise((resolve) => setTimeout(resolve, 300));

    const resumed = await fetch(a.mcpUrl, {
      headers: { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId },
    });
    expect(resumed.status).toBe(200);
    const replayed = await readEvents(resumed, (text) => text.includes('list_changed'));
    expect(replayed).toContain('notifications/resources/list_changed');
    expect(replayed).not.toContain(`id: ${lastEventId}\n`);
  });
});
