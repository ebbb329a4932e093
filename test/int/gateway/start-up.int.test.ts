import { randomUUID } from 'node:crypto';
import {
  Client as ModernClient,
  InMemoryTransport,
  StreamableHTTPClientTransport as ModernHttp,
} from '@modelcontextprotocol/client';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createGatewayServices,
  type ComposedGatewayServices,
} from '../../../bin/gateway-services.js';
import { createApp, type App } from '../../../bin/app.js';
import { createTokenAuth } from '../../../mcp-gateway/auth/tokens.js';
import { createMcpEndpoint } from '../../../mcp-gateway/http/mcp-endpoint.js';
import { createRestSurface } from '../../../mcp-gateway/rest/routes.js';
import { httpSettingsFromConfig, startHttpServer } from '../../../mcp-gateway/http/server.js';
import { LOCAL_CALLER } from '../../../mcp-gateway/registry.js';
import { createMcpGateway } from '../../../mcp-gateway/server/factory.js';
import { START_UP_META_KEY } from '../../../mcp-gateway/server/start-up-gate.js';
import {
  createStartUp,
  type StartUpState,
  type StartUpStep,
} from '../../../mcp-gateway/start-up.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';
import { loadConfig } from '../../../services/runtime/config.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { ingestCorpus } from '../../../services/catalog/ingest.js';
import { catalogProjection } from '../../../services/catalog/read-model/projection.js';
import { defaultCorpusDir } from '../../../services/catalog/start-up.js';
import { TOOL_SAMPLES } from '../../e2e/gateway/tool-samples.js';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../support/postgres.js';

/**
 * MCP while the process is starting: every tool call, resource list and read waits for the
 * start-up state (bounded), with progress for a caller that asked, then answers from the
 * whole catalog or is refused with a retry hint; the lists a client needs to connect answer
 * at once. Served as `serve` serves it: HTTP on both revisions, and the stdio entry (over an
 * in-memory wire) on both revisions. The start-up is one the test holds and releases.
 */
interface Held {
  readonly state: StartUpState;
  readonly catalog: StartUpStep;
  readonly mcpUrl: string;
  /** The read-only REST surface's tool calls: `${restUrl}/describe_schema`. */
  readonly restUrl: string;
  /** The stdio entry `serve --stdio` runs, on an in-memory wire. */
  stdioWire(): InMemoryTransport;
  close(): Promise<void>;
}

type AnyClient = ModernClient | LegacyClient;

let db: ThrowawayDatabase;
let app: App;
let composed: ComposedGatewayServices;
const closers: (() => Promise<void>)[] = [];

const hold = async (waitMs: number): Promise<Held> => {
  const state = createStartUp();
  const catalog = state.step('catalog', 'ingesting');
  const logger = createLogger('silent');
  const gateway = createMcpGateway({
    tools: ALL_TOOLS,
    services: composed.services,
    logger,
    version: '0.0.0-test',
    startUp: state,
    startUpWaitMs: waitMs,
  });
  const config = loadConfig({ DATABASE_URL: db.url, COGITAVE_HTTP_PORT: '0' });
  const endpoint = createMcpEndpoint({
    gateway,
    services: composed.services,
    auth: createTokenAuth({}),
    logger,
  });
  const rest = createRestSurface(composed.services, () => LOCAL_CALLER, {
    version: '0.0.0-test',
    startUp: { state, waitMs },
  });
  const http = await startHttpServer({
    ...httpSettingsFromConfig(config),
    logger,
    readiness: [],
    routes: [...endpoint.routes, ...rest.routes],
  });
  const wires: { close(): Promise<void> }[] = [];
  return {
    state,
    catalog,
    mcpUrl: `${http.url}/mcp`,
    restUrl: `${http.url}/api/tools`,
    stdioWire: () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      wires.push(
        serveStdio(
          (context) => gateway.createServer(LOCAL_CALLER, { era: context.era, follow: true }),
          { legacy: 'serve', transport: serverSide },
        ),
      );
      return clientSide;
    },
    close: async () => {
      for (const wire of wires) await wire.close();
      await endpoint.close();
      await http.close();
    },
  };
};

/** One client per way in: HTTP and stdio, 2025-11-25 (v1 SDK) and 2026-07-28 (v2 SDK). */
const connectAll = async (held: Held): Promise<Record<string, AnyClient>> => {
  const legacyHttp = new LegacyClient({ name: 'start-up-v1-http', version: '1.0.0' });
  await legacyHttp.connect(new LegacyHttp(new URL(held.mcpUrl)));
  const modernHttp = new ModernClient(
    { name: 'start-up-v2-http', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await modernHttp.connect(new ModernHttp(new URL(held.mcpUrl)));
  const legacyStdio = new LegacyClient({ name: 'start-up-v1-stdio', version: '1.0.0' });
  await legacyStdio.connect(held.stdioWire());
  const modernStdio = new ModernClient(
    { name: 'start-up-v2-stdio', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await modernStdio.connect(held.stdioWire());
  expect(modernHttp.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  expect(modernStdio.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  const clients = { legacyHttp, modernHttp, legacyStdio, modernStdio };
  closers.push(async () => {
    for (const client of Object.values(clients)) await client.close();
  });
  return clients;
};

const eachClient = <T>(
  clients: Record<string, AnyClient>,
  run: (client: AnyClient, name: string) => Promise<T>,
): Promise<Record<string, T>> =>
  Promise.all(
    Object.entries(clients).map(async ([name, client]) => [name, await run(client, name)] as const),
  ).then((entries) => Object.fromEntries(entries));

interface CallOptions {
  readonly onprogress?: (progress: { message?: string }) => void;
  readonly signal?: AbortSignal;
  readonly timeout?: number;
}

/** What this test reads of a tools/call result, from either SDK. */
interface ToolResult {
  readonly isError?: boolean;
  readonly content?: unknown;
  readonly structuredContent?: unknown;
  readonly _meta?: Record<string, unknown>;
}

/** tools/call with request options: the v1 client takes them third, the v2 client second. */
const callWith = async (
  client: AnyClient,
  params: { name: string; arguments: Record<string, unknown> },
  options: CallOptions = {},
): Promise<ToolResult> =>
  client instanceof LegacyClient
    ? await client.callTool(params, undefined, options)
    : await client.callTool(params, options);

const textOf = (result: ToolResult): string =>
  JSON.stringify((result.content as { text?: string }[] | undefined)?.map((c) => c.text));

const requestStreams = async (): Promise<number> =>
  (await app.eventStore.readAll({ maxCount: 1000, filter: { streamPrefixes: ['request-'] } }))
    .length;

beforeAll(async () => {
  db = await createThrowawayDatabase('gateway_start_up');
  app = await createApp(
    loadConfig({ DATABASE_URL: db.url, CATALOG_DIR: 'none', COGITAVE_POLL_INTERVAL_MS: '100' }),
    createLogger('silent'),
  );
  composed = await createGatewayServices(app);
  app.projections.start();
  await app.changes.ready();
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await composed.close();
  await app.close();
  await db.drop();
});

describe('MCP while the catalog is still starting', () => {
  let held: Held;
  let clients: Record<string, AnyClient>;

  beforeAll(async () => {
    held = await hold(20_000);
    closers.push(() => held.close());
    clients = await connectAll(held);
  });

  it('given a held start-up, when clients list tools, prompts and templates, then they answer at once', async () => {
    const lists = await eachClient(clients, async (client) => {
      const tools = await client.listTools();
      const prompts = await client.listPrompts();
      const templates = await client.listResourceTemplates();
      return [tools.tools.length, prompts.prompts.length, templates.resourceTemplates.length > 0];
    });
    for (const counts of Object.values(lists)) expect(counts).toEqual([ALL_TOOLS.length, 2, true]);
    expect(held.state.isReady()).toBe(false);
    expect(held.state.waiting()).toBe(0);
  });

  it('given a held start-up, when describe_schema is called with a progress token on every way in, then each waits, hears the ingest progress, and answers from the whole catalog once released', async () => {
    const heard: Record<string, string[]> = {};
    let answered = 0;
    const calls = eachClient(clients, async (client, name) => {
      heard[name] = [];
      const result = await callWith(
        client,
        { name: 'describe_schema', arguments: {} },
        {
          onprogress: (progress) => {
            heard[name]?.push(progress.message ?? '');
          },
          // The client's own timeout must not end the wait first.
          timeout: 60_000,
        },
      );
      answered += 1;
      return result;
    });
    // Every call is waiting (the progress each heard says so), none has answered.
    await expect.poll(() => held.state.waiting(), { timeout: 5000 }).toBe(4);
    held.catalog.report('ingesting', 5, 10);
    await expect
      .poll(() => Object.values(heard).every((messages) => messages.length >= 2), {
        timeout: 5000,
      })
      .toBe(true);
    expect(answered).toBe(0);

    // The shipped corpus, ingested and applied by the catalog read model: the whole catalog.
    const report = await ingestCorpus(app.eventStore, {
      dir: defaultCorpusDir(),
      checkSamples: false,
      meta: { commandId: randomUUID(), actor: 'system:test', at: new Date().toISOString() },
    });
    expect(report.errors).toEqual([]);
    expect(report.lastPosition).not.toBeNull();
    expect(
      await app.changes.waitForPosition(catalogProjection.name, report.lastPosition!, {
        timeoutMs: 30_000,
      }),
    ).toBe(true);
    held.catalog.done();
    const results = await calls;
    for (const [name, result] of Object.entries(results)) {
      expect(result.isError, name).toBeFalsy();
      const labels = (result.structuredContent as { labels: { label: string; count: number }[] })
        .labels;
      // Before the ingest the catalog had no Doc at all.
      expect(labels.find((label) => label.label === 'Doc')?.count, name).toBeGreaterThan(0);
      expect(heard[name], name).toContain(
        'Cogitave is starting: ingesting the catalog: 5 of 10 documents',
      );
    }
    expect(held.state.waiting()).toBe(0);
  });
});

describe('MCP when start-up takes longer than the wait', () => {
  let held: Held;
  let clients: Record<string, AnyClient>;

  beforeAll(async () => {
    held = await hold(400);
    closers.push(() => held.close());
    clients = await connectAll(held);
    held.catalog.report('ingesting', 120, 340);
  });

  it('given a start-up that does not finish in time, when request_intake is called, then a tool error with the retry text and hint, and nothing is appended', async () => {
    const before = await requestStreams();
    const results = await eachClient(clients, (client, name) =>
      callWith(client, {
        name: 'request_intake',
        arguments: TOOL_SAMPLES.request_intake?.args({ suffix: name }) as Record<string, unknown>,
      }),
    );
    for (const [name, result] of Object.entries(results)) {
      expect(result.isError, name).toBe(true);
      expect(textOf(result), name).toContain(
        'Cogitave is still starting (ingesting the catalog: 120 of 340 documents); retry in',
      );
      expect(result._meta?.[START_UP_META_KEY], name).toMatchObject({
        phase: 'ingesting',
        done: 120,
        total: 340,
        retryAfterSeconds: expect.any(Number) as unknown,
      });
      expect(result.structuredContent, name).toBeUndefined();
    }
    expect(await requestStreams()).toBe(before);
  });

  it('given bad arguments, when a tool is called while starting, then it is refused at once for what it is', async () => {
    const started = Date.now();
    const result = await callWith(clients.modernHttp!, {
      name: 'docs_fetch',
      arguments: { nope: 1 },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('INVALID_ARGUMENT');
    expect(Date.now() - started).toBeLessThan(400);
  });

  it('given a start-up that does not finish in time, when resources are listed or read, then a -32603 error with the retry hint as data', async () => {
    const errors = await eachClient(clients, async (client) => {
      const listed = await client.listResources().catch((error: unknown) => error);
      const read = await client
        .readResource({ uri: 'cogitave://doc/cogitave.core.architecture' })
        .catch((error: unknown) => error);
      return [listed, read] as { code?: number; message?: string; data?: unknown }[];
    });
    for (const [name, pair] of Object.entries(errors)) {
      for (const error of pair) {
        expect(error.code, name).toBe(-32603);
        expect(error.message, name).toContain('Cogitave is still starting');
        expect(error.data, name).toMatchObject({ phase: 'ingesting', done: 120, total: 340 });
      }
    }
  });

  it('given a start-up that does not finish in time, when a read tool is called over REST, then 503 with Retry-After and the hint as details', async () => {
    const response = await fetch(`${held.restUrl}/describe_schema`);
    expect(response.status).toBe(503);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await response.json()) as { code: string; detail: string; details: unknown };
    expect(body.code).toBe('UNAVAILABLE');
    expect(body.detail).toContain('Cogitave is still starting (ingesting the catalog: 120 of 340');
    expect(body.details).toMatchObject({ phase: 'ingesting', done: 120, total: 340 });
  });

  it('given a waiting call, when the client cancels it, then the server stops waiting at once', async () => {
    // A wait long enough that only the cancellation can end it within the test.
    const patient = await hold(60_000);
    closers.push(() => patient.close());
    const patientClients = await connectAll(patient);
    for (const [name, client] of Object.entries(patientClients)) {
      const controller = new AbortController();
      const call = callWith(
        client,
        { name: 'list_requests', arguments: {} },
        { signal: controller.signal, timeout: 60_000 },
      ).catch((error: unknown) => error);
      await expect.poll(() => patient.state.waiting(), { timeout: 5000 }).toBe(1);
      controller.abort(new Error('the user cancelled'));
      expect(await call, name).toBeInstanceOf(Error);
      await expect.poll(() => patient.state.waiting(), { timeout: 5000 }).toBe(0);
    }
  });
});
