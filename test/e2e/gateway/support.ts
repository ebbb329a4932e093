import { randomUUID } from 'node:crypto';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { createTokenAuth, hashToken, loadTokenTable } from '../../../mcp-gateway/auth/tokens.js';
import { createGatewayServices } from '../../../bin/gateway-services.js';
import { consoleAuditSources } from '../../../bin/commands/serve/gateway.js';
import { createWebConsole, type WebConsole } from '../../../mcp-gateway/console/index.js';
import {
  createMcpEndpoint,
  endpointLimitsFromConfig,
  type McpEndpoint,
} from '../../../mcp-gateway/http/mcp-endpoint.js';
import { httpSettingsFromConfig, startHttpServer } from '../../../mcp-gateway/http/server.js';
import { createMcpGateway } from '../../../mcp-gateway/server/factory.js';
import { ALL_TOOLS } from '../../../mcp-gateway/tools/index.js';
import { ingestCorpus } from '../../../services/catalog/ingest.js';
import { defaultCorpusDir } from '../../../services/catalog/start-up.js';
import { createApp, type App } from '../../../bin/app.js';
import { loadConfig } from '../../../services/runtime/config.js';
import { createLogger } from '../../../services/runtime/logger.js';
import { expect } from 'vitest';
import { callOrder, TOOL_SAMPLES, type SampleState } from './tool-samples.js';

/**
 * A gateway process's worth of parts, in this test process: its own App (pool, change feed,
 * projection runner), services, MCP gateway and HTTP server. Two of them on one database
 * behave as two replicas: changes reach each other only through Postgres.
 */
export interface GatewayUnderTest {
  readonly app: App;
  readonly url: string;
  readonly mcpUrl: string;
  readonly endpoint: McpEndpoint;
  /** The web console mounted beside /mcp (local approval mode). */
  readonly console: WebConsole;
  /** Its ready-line fields: `console` (in local mode the one-time login link). */
  readonly consoleAnnounce: Record<string, string>;
  close(): Promise<void>;
}

export const startGateway = async (
  databaseUrl: string,
  env: Record<string, string> = {},
): Promise<GatewayUnderTest> => {
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    COGITAVE_HTTP_PORT: '0',
    COGITAVE_POLL_INTERVAL_MS: '100',
    CATALOG_DIR: 'none',
    ...env,
  });
  const logger = createLogger('silent');
  const app = await createApp(config, logger);
  const composed = await createGatewayServices(app);
  const gateway = createMcpGateway({
    tools: ALL_TOOLS,
    services: composed.services,
    logger,
    version: '0.0.0-test',
  });
  const auth = createTokenAuth(loadTokenTable(config));
  const endpoint = createMcpEndpoint({
    gateway,
    services: composed.services,
    auth,
    logger,
    ...endpointLimitsFromConfig(config),
  });
  const webConsole = createWebConsole({
    services: composed.services,
    tools: ALL_TOOLS,
    auth,
    secret: config.consoleSecret?.reveal(),
    approval: { kind: 'local' },
    logger,
    audit: consoleAuditSources(app),
  });
  const http = await startHttpServer({
    ...httpSettingsFromConfig(config),
    logger,
    readiness: [],
    routes: [...endpoint.routes, ...webConsole.routes],
  });
  app.projections.start();
  await app.changes.ready();
  return {
    app,
    url: http.url,
    mcpUrl: `${http.url}/mcp`,
    endpoint,
    console: webConsole,
    consoleAnnounce: webConsole.announce(http.urls),
    close: async () => {
      await endpoint.close();
      await http.close();
      await composed.close();
      await app.close();
    },
  };
};

/** The shipped corpus, without the slow sample compile check (covered by the catalog tests). */
export const ingestShippedCorpus = async (app: App): Promise<void> => {
  const report = await ingestCorpus(app.eventStore, {
    dir: defaultCorpusDir(),
    checkSamples: false,
    meta: { commandId: randomUUID(), actor: 'system:test', at: new Date().toISOString() },
  });
  if (report.errors.length > 0) throw new Error(`corpus refused: ${JSON.stringify(report.errors)}`);
};

/**
 * Resolves once every read model has applied everything in the log, on whichever of the apps
 * holds its leader lock (the others stand by).
 */
export const waitForProjections = async (
  apps: readonly App[],
  timeoutMs = 20_000,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const statuses = apps.flatMap((app) => app.projections.status());
    const names = [...new Set(statuses.map((status) => status.name))];
    const done = names.every((name) =>
      statuses.some(
        (status) =>
          status.name === name &&
          status.leader &&
          status.state === 'caught_up' &&
          status.lagEvents === 0,
      ),
    );
    if (done) return;
    if (Date.now() > deadline)
      throw new Error(`projections not caught up: ${JSON.stringify(statuses)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

/** Validates structured results against the JSON Schema 2020-12 output schemas the server lists. */
export const createOutputValidator = () => {
  const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  return (schema: Record<string, unknown>, value: unknown): string[] => {
    const validate = ajv.compile(schema);
    return validate(value)
      ? []
      : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message ?? ''}`);
  };
};

export const tokenTable = (entries: Record<string, { name: string; grants: object }>): string =>
  JSON.stringify(
    Object.fromEntries(Object.entries(entries).map(([token, entry]) => [hashToken(token), entry])),
  );

/** Polls `check` until it returns true. */
export const eventually = async (
  check: () => boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

export interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: unknown[];
}

export type CallTool = (name: string, args: object) => Promise<ToolResult>;

/** Calls every registered tool with its sample arguments; checks results against outputSchema. */
export const callEveryTool = async (
  tools: readonly { name: string; outputSchema?: Record<string, unknown> }[],
  call: CallTool,
  suffix: string,
): Promise<void> => {
  const validateOutput = createOutputValidator();
  const state: SampleState = { suffix };
  const schemas = new Map(tools.map((tool) => [tool.name, tool.outputSchema]));
  for (const name of callOrder(tools.map((tool) => tool.name))) {
    const sample = TOOL_SAMPLES[name];
    if (!sample) throw new Error(`tool ${name} has no sample arguments in tool-samples.ts`);
    for (const step of sample.before ?? []) {
      const prepared = await call(step.tool, step.args(state));
      expect(prepared.isError, `${step.tool} before ${name}`).toBeFalsy();
    }
    const result = await call(name, sample.args(state));
    expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
    expect(result.structuredContent, name).toBeDefined();
    const schema = schemas.get(name);
    expect(schema, `${name} lists an outputSchema`).toBeDefined();
    expect(validateOutput(schema ?? {}, result.structuredContent), name).toEqual([]);
    if (name === 'request_intake') state.requestId = result.structuredContent?.request_id as string;
  }
};

/** A client of either SDK, as far as listing and calling tools goes. */
export interface ToolClient {
  listTools(): Promise<{ tools: { name: string; outputSchema?: Record<string, unknown> }[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
}

/** Lists the tools (every one of ALL_TOOLS) and calls each with its sample (`callEveryTool`). */
export const listAndCallEveryTool = async (client: ToolClient, suffix: string): Promise<void> => {
  const { tools } = await client.listTools();
  expect(tools).toHaveLength(ALL_TOOLS.length);
  await callEveryTool(
    tools,
    (name, args) =>
      client.callTool({ name, arguments: args as Record<string, unknown> }) as Promise<ToolResult>,
    suffix,
  );
};
